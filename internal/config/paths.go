package config

// Where the user's files live: the XDG config and data homes (with their
// fallbacks under $HOME), and the user's AGENTS.md and commands in them.

import (
	"os"
	"path/filepath"
)

func configHome(getenv func(string) string) string {
	if v := getenv("XDG_CONFIG_HOME"); v != "" {
		return v
	}
	return filepath.Join(home(getenv), ".config")
}

func dataHome(getenv func(string) string) string {
	if v := getenv("XDG_DATA_HOME"); v != "" {
		return v
	}
	return filepath.Join(home(getenv), ".local", "share")
}

func home(getenv func(string) string) string {
	if v := getenv("HOME"); v != "" {
		return v
	}
	h, _ := os.UserHomeDir()
	return h
}

// UserAgentsFile is the user's own AGENTS.md, added to every system prompt.
func UserAgentsFile(getenv func(string) string) string {
	return filepath.Join(configHome(getenv), "agent", "AGENTS.md")
}

// UserCommandsDir is the directory of the user's custom slash commands
// ($XDG_CONFIG_HOME/agent/commands).
func UserCommandsDir(getenv func(string) string) string {
	return filepath.Join(configHome(getenv), "agent", "commands")
}

// UserSkillsDir is the user's own skills directory (internal/skills).
func UserSkillsDir(getenv func(string) string) string {
	return filepath.Join(configHome(getenv), "agent", "skills")
}

// Home is the user's home directory ($HOME, else the system's idea of it).
func Home(getenv func(string) string) string { return home(getenv) }
