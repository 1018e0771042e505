package tools

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/ctxloop/agent/internal/attachments"
	"github.com/ctxloop/agent/internal/context/truncate"
)

// readImage is read of a file whose content is an image (whatever its
// name): the image for the model (Result.Images) and a line describing
// it; one past attachments.MaxImageBytes is refused without being read.
func readImage(env *Env, r *bufio.Reader, abs, shown, title string, info fs.FileInfo) (Result, error) {
	if info.Size() > attachments.MaxImageBytes {
		return errorResult(title, "%s is an image of %s, larger than read takes (%s)", shown,
			truncate.FormatBytes(info.Size()), truncate.FormatBytes(attachments.MaxImageBytes)), nil
	}
	data, err := io.ReadAll(io.LimitReader(r, attachments.MaxImageBytes+1))
	if err != nil {
		return errorResult(title, "cannot read %s: %v", shown, err), nil
	}
	img, desc, err := NewImage(filepath.Base(abs), data)
	if err != nil {
		return errorResult(title, "%s is a binary file (%s) read cannot show: %v", shown, truncate.FormatBytes(info.Size()), err), nil
	}
	if env.Files != nil {
		env.Files.Record(abs, info)
	}
	meta := map[string]any{"path": abs, "image": img.Info.MIME, "size_bytes": img.Info.SizeBytes}
	return Result{Output: fmt.Sprintf("%s is an image: %s", shown, desc), Title: title, Metadata: meta,
		Images: []Image{img}}, nil
}
