package config

// The sandbox setting (config sandbox, user file only: a repository must
// not be able to loosen, or quietly switch off, what confines the commands
// run in it). Two shapes are accepted:
//
//	"sandbox": "workspace-write"
//	"sandbox": {"mode": "workspace-write", "network": "allow", "writable": ["~/.cache/go-build"]}
//	"sandbox": {"mode": "workspace-write", "network": ["github.com", "*.pypi.org", "localhost:8080"]}
//
// network as a list of hosts is an allow-list: the network stays off but
// for those hosts, reached through the agent's proxy (internal/sandbox's
// proxy.go); it reads as Network "off" with Hosts set.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Sandbox is the OS sandbox for the commands the agent runs (see
// internal/sandbox). The zero value is off.
type Sandbox struct {
	// Mode is "off", "read-only" or "workspace-write"; "" is off.
	Mode string
	// Network is "off" (the default) or "allow".
	Network string
	// Hosts are the hosts reachable through the proxy when network is a
	// list (host, host:port or *.domain).
	Hosts []string
	// Writable are directories besides the workspace that commands may
	// write in workspace-write mode (absolute, ~ expanded).
	Writable []string
}

// sandboxEntry is the sandbox key of a config file: a mode, or an object.
type sandboxEntry struct {
	Mode     *string         `json:"mode"`
	Network  json.RawMessage `json:"network"`
	Writable []string        `json:"writable"`
}

func (e *sandboxEntry) UnmarshalJSON(b []byte) error {
	if b = bytes.TrimSpace(b); len(b) > 0 && b[0] == '"' {
		var mode string
		if err := json.Unmarshal(b, &mode); err != nil {
			return err
		}
		e.Mode = &mode
		return nil
	}
	type plain sandboxEntry
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("sandbox: want a mode (\"workspace-write\") or an object {\"mode\", \"network\", \"writable\"}: %w", err)
	}
	*e = sandboxEntry(p)
	return nil
}

// applySandbox merges a user file's sandbox entry into c.
func (c *Config) applySandbox(e *sandboxEntry) error {
	if e == nil {
		return nil
	}
	if e.Mode != nil {
		c.Sandbox.Mode = *e.Mode
	}
	if len(e.Network) > 0 {
		var s string
		var hosts []string
		if err := json.Unmarshal(e.Network, &s); err == nil {
			c.Sandbox.Network, c.Sandbox.Hosts = s, nil
		} else if err := json.Unmarshal(e.Network, &hosts); err == nil {
			for _, h := range hosts {
				if h = strings.TrimSpace(h); h == "" || strings.ContainsAny(h, "/ @?#") {
					return fmt.Errorf("config: sandbox.network %q: want a host name (example.com, host:port or *.example.com), not a URL", h)
				}
			}
			c.Sandbox.Network, c.Sandbox.Hosts = "off", hosts
		} else {
			return fmt.Errorf("config: sandbox.network %s: want \"off\", \"allow\" or a list of hosts", e.Network)
		}
	}
	for _, w := range e.Writable {
		if strings.HasPrefix(w, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				w = filepath.Join(home, w[2:])
			}
		}
		if !filepath.IsAbs(w) {
			return fmt.Errorf("config: sandbox.writable %q: want an absolute path (or ~/...)", w)
		}
		c.Sandbox.Writable = append(c.Sandbox.Writable, filepath.Clean(w))
	}
	return nil
}

func (s Sandbox) validate() error {
	switch s.Mode {
	case "", "off", "read-only", "workspace-write":
	default:
		return fmt.Errorf("config: sandbox.mode %q: want off, read-only or workspace-write", s.Mode)
	}
	switch s.Network {
	case "", "off", "allow":
	default:
		return fmt.Errorf("config: sandbox.network %q: want off or allow", s.Network)
	}
	return nil
}
