package lsp

// protocol.go: the few Language Server Protocol shapes the agent speaks
// (LSP 3.17): the JSON-RPC envelope, diagnostics, and the params of the
// requests and notifications sent.

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"
)

// wireMessage is any JSON-RPC 2.0 message: a request (ID and Method), a
// notification (Method only) or a response (ID with Result or Error).
type wireMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *wireError      `json:"error,omitempty"`
}

type wireError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Severity is an LSP diagnostic severity.
type Severity int

// Severities, as the protocol numbers them.
const (
	SeverityError   Severity = 1
	SeverityWarning Severity = 2
	SeverityInfo    Severity = 3
	SeverityHint    Severity = 4
)

func (s Severity) String() string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	case SeverityInfo:
		return "info"
	case SeverityHint:
		return "hint"
	}
	return "error" // the protocol: a missing severity is the client's to read; an error is the safe reading
}

// Diagnostic is one diagnostic of a file, positions 0-based as the
// protocol sends them.
type Diagnostic struct {
	Range struct {
		Start position `json:"start"`
		End   position `json:"end"`
	} `json:"range"`
	Severity Severity        `json:"severity,omitempty"`
	Code     json.RawMessage `json:"code,omitempty"` // a number or a string
	Source   string          `json:"source,omitempty"`
	Message  string          `json:"message"`
}

type position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Line and Column are the diagnostic's start, 1-based.
func (d Diagnostic) Line() int   { return d.Range.Start.Line + 1 }
func (d Diagnostic) Column() int { return d.Range.Start.Character + 1 }

// key is what makes two diagnostics the same one, wherever they are.
func (d Diagnostic) key() string {
	sev := d.Severity
	if sev == 0 {
		sev = SeverityError
	}
	return sev.String() + "\x00" + string(d.Code) + "\x00" + d.Message
}

type publishParams struct {
	URI         string       `json:"uri"`
	Version     *int         `json:"version,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

type textDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int    `json:"version"`
	Text       string `json:"text"`
}

type versionedDoc struct {
	URI     string `json:"uri"`
	Version int    `json:"version"`
}

type docID struct {
	URI string `json:"uri"`
}

// fileURI is the file: URI of an absolute path.
func fileURI(path string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	return u.String()
}

// uriPath is the path of a file: URI ("" for another scheme).
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	return filepath.FromSlash(u.Path)
}

// languageIDs are the protocol's language identifiers by extension; a
// file of another extension is opened with its server's name.
var languageIDs = map[string]string{
	".go": "go", ".py": "python", ".pyi": "python", ".ts": "typescript", ".tsx": "typescriptreact",
	".js": "javascript", ".jsx": "javascriptreact", ".mjs": "javascript", ".cjs": "javascript",
	".rs": "rust", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp",
	".java": "java", ".rb": "ruby", ".lua": "lua", ".zig": "zig", ".cs": "csharp", ".php": "php",
}

func languageID(path, server string) string {
	if id, ok := languageIDs[strings.ToLower(filepath.Ext(path))]; ok {
		return id
	}
	return server
}
