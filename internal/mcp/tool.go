package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxloop/agent/internal/attachments"
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/tools"
)

// toolOverheadTokens is what a tool definition costs beyond its name,
// description and schema, as the loop counts it (loop.fixedTokens).
const toolOverheadTokens = 8

// SchemaTokens estimates what offering t costs in every request: its
// name, description and schema at four characters a token, plus the
// per-tool overhead, as the loop counts it.
func SchemaTokens(t tools.Tool) int64 {
	return int64(tokens.Chars{}.Count(t.Name()+t.Description()+string(t.Parameters()))) + toolOverheadTokens
}

// tool is one tool of a server, offered to the model.
type tool struct {
	sv     *server
	name   string // offered: SERVER__TOOL
	remote string // the server's own name for it
	desc   string
	schema json.RawMessage
}

var (
	_ tools.Tool  = (*tool)(nil)
	_ tools.Gated = (*tool)(nil)
)

func newTool(sv *server, name string, info toolInfo) *tool {
	desc := strings.TrimSpace(termsafe.Strip(info.desc))
	if desc == "" {
		desc = fmt.Sprintf("The %s tool of the %s MCP server.", info.name, sv.name)
	}
	return &tool{sv: sv, name: name, remote: info.name, desc: desc, schema: info.schema}
}

func (t *tool) Name() string                { return t.name }
func (t *tool) Description() string         { return t.desc }
func (t *tool) Parameters() json.RawMessage { return t.schema }

// ReadOnly is false whatever the server's hints say: a server's word is
// not enough to run its tools side by side or in a read-only child.
func (t *tool) ReadOnly() bool { return false }

// PermissionKeys are the tool's name, then its server's.
func (t *tool) PermissionKeys() []string { return []string{t.name, t.sv.name} }

// Server is the name of the server the tool belongs to.
func (t *tool) Server() string { return t.sv.name }

// Run calls the tool on its server. Every failure is an error result.
func (t *tool) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	title := t.sv.name + ": " + t.remote
	meta := map[string]any{"mcp_server": t.sv.name, "mcp_tool": t.remote}
	res, err := t.sv.call(ctx, t.remote, call.Input)
	if err != nil {
		return tools.Result{Output: fmt.Sprintf("%s failed: %v", t.name, err), Title: title, IsError: true, Metadata: meta}, nil
	}
	out, images := resultContent(t.name, res)
	if res.IsError && strings.TrimSpace(out) == "" {
		out = "the tool reported an error without a message"
	}
	return tools.Result{Output: out, Title: title, IsError: res.IsError, Metadata: meta, Images: images}, nil
}

// resultContent is a call's result for the model: text joined, images
// for the model (tools.NewImage checks each by its content, whatever
// MIME type the server claims; at most tools.MaxResultImages) each
// described in the text too, everything else described. name is the
// tool's, which names its images (name-1.png).
func resultContent(name string, res *sdk.CallToolResult) (string, []tools.Image) {
	var parts []string
	var images []tools.Image
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			parts = append(parts, imageContent(name, c, &images))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio: %s, %s; not shown]", orUnknown(c.MIMEType), size(len(c.Data))))
		case *sdk.ResourceLink:
			desc := fmt.Sprintf("[resource link: %s <%s>", c.Name, c.URI)
			if c.MIMEType != "" {
				desc += " " + c.MIMEType
			}
			if c.Description != "" {
				desc += ": " + c.Description
			}
			parts = append(parts, desc+"]")
		case *sdk.EmbeddedResource:
			r := c.Resource
			if r == nil {
				continue
			}
			if r.Text != "" || len(r.Blob) == 0 {
				parts = append(parts, fmt.Sprintf("[resource <%s> %s]\n%s", r.URI, orUnknown(r.MIMEType), r.Text))
			} else {
				parts = append(parts, fmt.Sprintf("[resource <%s>: %s, %s; binary, not shown]", r.URI, orUnknown(r.MIMEType), size(len(r.Blob))))
			}
		default:
			parts = append(parts, fmt.Sprintf("[%T content; not shown]", c))
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	return strings.Join(parts, "\n"), images
}

// imageContent adds the image of c to images when it is one the model
// can be sent, and returns the line that describes it.
func imageContent(name string, c *sdk.ImageContent, images *[]tools.Image) string {
	notShown := func(why string) string {
		return fmt.Sprintf("[image: %s, %s; not shown: %s]", orUnknown(c.MIMEType), size(len(c.Data)), why)
	}
	if len(*images) >= tools.MaxResultImages {
		return notShown(fmt.Sprintf("more than %d images in one result", tools.MaxResultImages))
	}
	if name == "" {
		name = "image"
	}
	img, desc, err := tools.NewImage(fmt.Sprintf("%s-%d%s", name, len(*images)+1, imageExt(c.Data)), c.Data)
	if err != nil {
		return notShown(err.Error())
	}
	*images = append(*images, img)
	return desc
}

// imageExt is the extension an image's name gets, from its content.
func imageExt(data []byte) string {
	mime, err := attachments.Check(data)
	if err != nil {
		return ""
	}
	return "." + strings.TrimPrefix(mime, "image/")
}

func orUnknown(mime string) string {
	if mime == "" {
		return "unknown type"
	}
	return mime
}

func size(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f KB", float64(n)/1024)
}

// normaliseSchema makes a server's input schema one every provider takes:
// an object schema with properties, without $schema.
func normaliseSchema(in any) json.RawMessage {
	var m map[string]any
	switch v := in.(type) {
	case map[string]any:
		m = make(map[string]any, len(v)+2)
		for k, x := range v {
			m[k] = x
		}
	case json.RawMessage:
		_ = json.Unmarshal(v, &m)
	}
	if m == nil {
		m = map[string]any{}
	}
	delete(m, "$schema")
	m["type"] = "object"
	if _, ok := m["properties"].(map[string]any); !ok {
		m["properties"] = map[string]any{}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return b
}
