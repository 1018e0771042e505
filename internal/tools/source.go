package tools

// Source supplies tools beyond a session's built-in ones, as they become
// available: an MCP server that connects late adds its tools, and the loop
// offers them from its next step on. Tools must be cheap and safe for
// concurrent use (the loop calls it before every step); a tool it stops
// returning is no longer offered or run.
type Source interface {
	Tools() []Tool
}
