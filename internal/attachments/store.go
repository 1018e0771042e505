// Package attachments stores the images a user attaches to a message. An
// image is checked before anything else happens (at most MaxImageBytes, and
// PNG, JPEG, GIF or WebP by its content, whatever its name), then stored
// once, by content: <data>/attachments/ab/abcdef….png, named by the SHA-256
// of its bytes, a 0600 file in 0700 directories. Parts refer to it by that
// relative path (message.FileState.Store), so a message keeps its image
// however often it is sent, queued or compacted, and the same screenshot
// attached twice is one file.
package attachments

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	_ "image/gif"  // DecodeConfig reads GIF sizes
	_ "image/jpeg" // and JPEG's
	_ "image/png"  // and PNG's
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/safefile"
)

// MaxImageBytes bounds an image: providers refuse larger ones (OpenAI's
// limit is 20 MB per image), so it is refused before sending.
const MaxImageBytes = 20 << 20

// extensions are the image formats providers accept, by MIME type as
// http.DetectContentType names them, with the store's file extension.
var extensions = map[string]string{
	"image/png":  ".png",
	"image/jpeg": ".jpg",
	"image/gif":  ".gif",
	"image/webp": ".webp",
}

// ErrTooLarge and ErrUnsupported are why an image is refused.
var (
	ErrTooLarge    = fmt.Errorf("larger than %d MB", MaxImageBytes>>20)
	ErrUnsupported = errors.New("not a PNG, JPEG, GIF or WebP image")
)

// Check decides whether data may be attached as an image and returns its
// MIME type, sniffed from its content.
func Check(data []byte) (mime string, err error) {
	if len(data) > MaxImageBytes {
		return "", ErrTooLarge
	}
	mime = http.DetectContentType(data)
	if _, ok := extensions[mime]; !ok {
		return "", fmt.Errorf("%w (it looks like %s)", ErrUnsupported, strings.SplitN(mime, ";", 2)[0])
	}
	return mime, nil
}

// ReadImage reads the image file at path and checks it (Check), reading
// no more than MaxImageBytes+1 bytes of it. Only a regular file is read,
// without blocking (safefile): a FIFO or a device is refused at once.
func ReadImage(path string) (data []byte, mime string, err error) {
	data, err = safefile.Read(context.Background(), path, "", MaxImageBytes)
	if err != nil {
		var e *safefile.Error
		switch {
		case errors.Is(err, safefile.ErrTooLarge):
			err = ErrTooLarge
		case errors.As(err, &e) && errors.Is(e.Err, safefile.ErrNotRegular):
			err = e.Err
		case errors.As(err, &e):
			err = &fs.PathError{Op: "open", Path: path, Err: e.Err}
		}
		return nil, "", fmt.Errorf("image %s: %w", path, err)
	}
	if mime, err = Check(data); err != nil {
		return nil, "", fmt.Errorf("image %s: %w", path, err)
	}
	return data, mime, nil
}

// Store is the attachment store under a data dir.
type Store struct {
	// Dir is the store's directory, <data>/attachments.
	Dir string
}

// ForDataDir returns the store of a data dir.
func ForDataDir(dataDir string) Store { return Store{Dir: filepath.Join(dataDir, "attachments")} }

// Add checks data (Check) and stores it, once, returning the part state
// that refers to it; name is the file name shown (the base of the path
// given, or "clipboard.png").
func (s Store) Add(name string, data []byte) (*message.FileState, error) {
	mime, err := Check(data)
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", name, err)
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	rel := filepath.Join(hash[:2], hash+extensions[mime])
	path := filepath.Join(s.Dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("store image %s: %w", name, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != int64(len(data)) {
		if err := writeFile(path, data); err != nil {
			return nil, fmt.Errorf("store image %s: %w", name, err)
		}
	}
	f := &message.FileState{Kind: message.AttachImage, Path: filepath.Base(name), Store: filepath.ToSlash(rel),
		MIME: mime, SizeBytes: int64(len(data))}
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil {
		f.Width, f.Height = cfg.Width, cfg.Height
	}
	return f, nil
}

// AddFile reads, checks and stores the image file at path.
func (s Store) AddFile(path string) (*message.FileState, error) {
	data, _, err := ReadImage(path)
	if err != nil {
		return nil, err
	}
	return s.Add(path, data)
}

// writeFile writes data to path through a temporary file and a rename, so
// that a reader never sees half an image.
func writeFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// DataURL returns the stored image of f as a data URL
// ("data:image/png;base64,…"), as chat requests carry images.
func (s Store) DataURL(f *message.FileState) (string, error) {
	if f == nil || f.Kind != message.AttachImage || f.Store == "" || !filepath.IsLocal(f.Store) {
		return "", errors.New("read image: not a stored image")
	}
	data, err := os.ReadFile(filepath.Join(s.Dir, filepath.FromSlash(f.Store)))
	if err != nil {
		return "", fmt.Errorf("read image %s: %w", f.Path, err)
	}
	return "data:" + f.MIME + ";base64," + base64.StdEncoding.EncodeToString(data), nil
}
