package attachments

import (
	"bytes"
	"image"
)

// Info is what an image's bytes say about it.
type Info struct {
	MIME      string
	SizeBytes int64
	// Width and Height are in pixels, 0 when unknown (WebP's are not read).
	Width, Height int
}

// Inspect checks data as Check does and says what image it is: the same
// bound and the same formats whoever hands the bytes in (the user, read,
// an MCP tool).
func Inspect(data []byte) (Info, error) {
	mime, err := Check(data)
	if err != nil {
		return Info{}, err
	}
	info := Info{MIME: mime, SizeBytes: int64(len(data))}
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil {
		info.Width, info.Height = cfg.Width, cfg.Height
	}
	return info, nil
}
