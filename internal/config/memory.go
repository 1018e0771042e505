package config

// The memory setting (config memory, user file only: a cloned repository
// must not be able to let its model store facts unasked, nor switch the
// review off):
//
//	"memory": {"remember": "ask", "scope": "project"}
//
// remember is what a remember call does: "ask" (the default: the
// permission dialog shows the text), "propose" (stored as proposed, the
// user accepts it in /memory), "allow" (stored at once) or "off" (the
// tool is not offered). scope is where it stores: "project" (the
// session's repository, or its directory outside one: memory.Project;
// the default) or "user" (every project).

import "fmt"

// The values of memory.remember.
const (
	RememberAsk     = "ask"
	RememberPropose = "propose"
	RememberAllow   = "allow"
	RememberOff     = "off"
)

// The values of memory.scope.
const (
	MemoryScopeProject = "project"
	MemoryScopeUser    = "user"
)

// Memory configures the memories kept across sessions (internal/memory).
// The zero value asks and keeps them per project.
type Memory struct {
	Remember string
	Scope    string
}

// RememberMode is Remember with its default.
func (m Memory) RememberMode() string {
	if m.Remember == "" {
		return RememberAsk
	}
	return m.Remember
}

// UserScope reports whether remember stores for every project.
func (m Memory) UserScope() bool { return m.Scope == MemoryScopeUser }

// memoryFile is the memory key of a config file.
type memoryFile struct {
	Remember *string `json:"remember"`
	Scope    *string `json:"scope"`
}

// applyMemory merges the user file's memory key; a value it does not know
// is ignored with a warning.
func (c *Config) applyMemory(f *memoryFile) {
	if f == nil {
		return
	}
	if v := f.Remember; v != nil {
		switch *v {
		case RememberAsk, RememberPropose, RememberAllow, RememberOff:
			c.Memory.Remember = *v
		default:
			c.Warnings = append(c.Warnings, fmt.Sprintf("memory.remember %q is ignored: want %q, %q, %q or %q", *v, RememberAsk, RememberPropose, RememberAllow, RememberOff))
		}
	}
	if v := f.Scope; v != nil {
		switch *v {
		case MemoryScopeProject, MemoryScopeUser:
			c.Memory.Scope = *v
		default:
			c.Warnings = append(c.Warnings, fmt.Sprintf("memory.scope %q is ignored: want %q or %q", *v, MemoryScopeProject, MemoryScopeUser))
		}
	}
}
