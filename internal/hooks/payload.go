package hooks

// What a hook reads on stdin, and how our tools look to a hook written for
// Claude Code.
//
// tool_name is Claude Code's name of the tool (Bash, Read, Write, Edit,
// Grep, Glob, LS, Task; an MCP tool SERVER__TOOL is mcp__SERVER__TOOL;
// tools Claude Code lacks keep our name), so that scripts comparing it
// work; agent_tool_name is ours. tool_input is our input with Claude
// Code's names added beside ours: file_path (absolute) for read, write and
// edit; glob for grep's include; timeout (ms) for bash's timeout_s.
// tool_response is {output, is_error, success}, with stdout for bash and
// filePath for read, write and edit.

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// claudeNames are Claude Code's names of our built-in tools.
var claudeNames = map[string]string{
	"bash": "Bash", "read": "Read", "write": "Write", "edit": "Edit",
	"grep": "Grep", "glob": "Glob", "ls": "LS", "task": "Task",
}

// ClaudeToolName is Claude Code's name for our tool name.
func ClaudeToolName(name string) string {
	if n, ok := claudeNames[name]; ok {
		return n
	}
	if strings.Contains(name, "__") && !strings.HasPrefix(name, "mcp__") {
		return "mcp__" + name
	}
	return name
}

// Payload is the JSON object a hook of ev reads on stdin.
func Payload(ev Event) []byte {
	p := map[string]any{
		"session_id":      ev.SessionID,
		"transcript_path": "",
		"cwd":             ev.Dir,
		"hook_event_name": ev.Name,
		"permission_mode": cmpOr(ev.Mode, "default"),
	}
	switch ev.Name {
	case PreToolUse, PostToolUse:
		p["tool_name"] = ClaudeToolName(ev.Tool)
		p["agent_tool_name"] = ev.Tool
		p["tool_input"] = claudeToolInput(ev.Tool, ev.ToolInput, ev.Dir)
		p["tool_use_id"] = ev.ToolUseID
		if ev.Name == PostToolUse {
			p["tool_response"] = toolResponse(ev)
		}
	case UserPromptSubmit:
		p["prompt"] = ev.Prompt
	case PreCompact:
		p["trigger"] = ev.Trigger
		p["custom_instructions"] = ev.CustomInstructions
	case PostCompact:
		p["trigger"] = ev.Trigger
		p["compact_summary"] = ev.Summary
	case SessionStart:
		p["source"] = ev.Source
		p["model"] = ev.Model
	case Stop:
		p["stop_hook_active"] = ev.StopHookActive
		p["last_assistant_message"] = ev.LastAssistantMessage
	}
	b, err := json.Marshal(p)
	if err != nil { // only an invalid tool input could do this; it is re-encoded as a string
		p["tool_input"] = string(ev.ToolInput)
		b, _ = json.Marshal(p)
	}
	return b
}

// claudeToolInput is the tool's input with Claude Code's field names
// added beside ours. An input that is not a JSON object is passed as is.
func claudeToolInput(tool string, input json.RawMessage, dir string) any {
	if len(input) == 0 {
		return map[string]any{}
	}
	var m map[string]any
	if err := json.Unmarshal(input, &m); err != nil || m == nil {
		if json.Valid(input) {
			return input
		}
		return string(input)
	}
	switch tool {
	case "read", "write", "edit":
		if p, ok := m["path"].(string); ok {
			m["file_path"] = absPath(dir, p)
		}
	case "grep":
		if inc, ok := m["include"].(string); ok {
			m["glob"] = inc
		}
	case "bash":
		if t, ok := m["timeout_s"].(float64); ok {
			m["timeout"] = t * 1000
		}
	}
	return m
}

// toolResponse is a PostToolUse hook's tool_response.
func toolResponse(ev Event) map[string]any {
	r := map[string]any{"output": ev.ToolOutput, "is_error": ev.ToolIsError, "success": !ev.ToolIsError}
	switch ev.Tool {
	case "bash":
		r["stdout"] = ev.ToolOutput
	case "read", "write", "edit":
		var in struct {
			Path string `json:"path"`
		}
		if json.Unmarshal(ev.ToolInput, &in) == nil && in.Path != "" {
			r["filePath"] = absPath(ev.Dir, in.Path)
		}
	}
	return r
}

func absPath(dir, p string) string {
	if filepath.IsAbs(p) || dir == "" {
		return p
	}
	return filepath.Join(dir, p)
}

// cmpOr is v, or def when v is empty.
func cmpOr(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
