package mcp

import (
	"fmt"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxloop/agent/internal/mcp/mcptest"
	"github.com/ctxloop/agent/internal/tools"
)

// TestImageContentBounded: an MCP result's images are checked by their
// content, not the MIME type the server claims, and at most
// tools.MaxResultImages of one result reach the model; the rest, and what
// is not an image, are described as not shown.
func TestImageContentBounded(t *testing.T) {
	res := &sdk.CallToolResult{Content: []sdk.Content{
		&sdk.ImageContent{MIMEType: "image/png", Data: make([]byte, 2048)}, // zeros, not a PNG
	}}
	for range tools.MaxResultImages + 1 {
		res.Content = append(res.Content, &sdk.ImageContent{MIMEType: "image/jpeg", Data: mcptest.PNG})
	}
	out, images := resultContent("s__shot", res)
	if len(images) != tools.MaxResultImages {
		t.Fatalf("%d images, want %d", len(images), tools.MaxResultImages)
	}
	if images[0].Name != "s__shot-1.png" || images[0].Info.MIME != "image/png" || images[0].Info.Width != 3 {
		t.Errorf("first image: %s %+v", images[0].Name, images[0].Info)
	}
	lines := strings.Split(out, "\n")
	if len(lines) != tools.MaxResultImages+2 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	if !strings.Contains(lines[0], "not shown: not a PNG, JPEG, GIF or WebP image") {
		t.Errorf("zeros: %s", lines[0])
	}
	if want := fmt.Sprintf("not shown: more than %d images in one result", tools.MaxResultImages); !strings.Contains(lines[len(lines)-1], want) {
		t.Errorf("the one too many: %s", lines[len(lines)-1])
	}
	if !strings.HasPrefix(lines[1], "[image: s__shot-1.png, image/png, ") || !strings.Contains(lines[1], "3×2") {
		t.Errorf("an image sent: %s", lines[1])
	}
}
