package tools

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/attachments"
)

// TestReadImage: read of an image file, by its content whatever its name
// (PNG, JPEG, GIF, WebP), returns the image for the model and a line
// describing it; one larger than attachments.MaxImageBytes is refused
// without being read, and a broken one is a binary file.
func TestReadImage(t *testing.T) {
	env := newEnv(t)
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	img.Set(1, 1, color.RGBA{G: 255, A: 255})
	var pngB, jpgB, gifB bytes.Buffer
	if err := png.Encode(&pngB, img); err != nil {
		t.Fatal(err)
	}
	if err := jpeg.Encode(&jpgB, img, nil); err != nil {
		t.Fatal(err)
	}
	if err := gif.Encode(&gifB, img, nil); err != nil {
		t.Fatal(err)
	}
	webp := append([]byte("RIFF\x24\x00\x00\x00WEBPVP8 "), make([]byte, 32)...)
	files := map[string][]byte{"shot.txt": pngB.Bytes(), "photo.dat": jpgB.Bytes(), "anim": gifB.Bytes(), "pic.webp": webp}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(env.Dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, mime := range map[string]string{"shot.txt": "image/png", "photo.dat": "image/jpeg", "anim": "image/gif", "pic.webp": "image/webp"} {
		res := call(t, env, "read", map[string]any{"path": name})
		if res.IsError || len(res.Images) != 1 {
			t.Fatalf("%s: %q, %d images", name, res.Output, len(res.Images))
		}
		got := res.Images[0]
		if !bytes.Equal(got.Data, files[name]) || got.Info.MIME != mime || got.Name != name {
			t.Errorf("%s: image %s %+v", name, got.Name, got.Info)
		}
		mustContain(t, res.Output, name, mime)
		if mime != "image/webp" && !strings.Contains(res.Output, "4×3") {
			t.Errorf("%s: %q does not give the dimensions", name, res.Output)
		}
	}

	big := filepath.Join(env.Dir, "huge.png")
	if err := os.WriteFile(big, pngB.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, attachments.MaxImageBytes+1); err != nil {
		t.Fatal(err)
	}
	if res := call(t, env, "read", map[string]any{"path": "huge.png"}); !res.IsError || len(res.Images) != 0 || !strings.Contains(res.Output, "larger than read takes") {
		t.Errorf("huge: %q, %d images", res.Output, len(res.Images))
	}
}
