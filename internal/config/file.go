package config

// A configuration file: its JSON shape (pointers tell set from unset), how
// one is read (safefile's rules: no link out of its home, a bounded
// regular file) and found (the project's, in the directory or a parent),
// and how it merges into a Config (apply: a project file may narrow what
// is billed or granted, never widen it).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/ctxloop/agent/internal/safefile"
)

// file is the JSON shape of a config file; pointers tell set from unset.
type file struct {
	Model      *string               `json:"model"`
	SmallModel *string               `json:"small_model"`
	BaseURL    *string               `json:"base_url"`
	APIKey     *string               `json:"api_key"`
	Models     map[string]modelEntry `json:"models"`
	Compaction *struct {
		Auto         *bool    `json:"auto"`
		Strategy     *string  `json:"strategy"`
		Threshold    *float64 `json:"threshold"`
		TailTurns    *int     `json:"tail_turns"`
		Prune        *bool    `json:"prune"`
		PruneProtect *int64   `json:"prune_protect"`
		PruneMinimum *int64   `json:"prune_minimum"`
		SummaryMax   *int64   `json:"summary_max_tokens"`
		TailTokens   *int64   `json:"tail_tokens"`
	} `json:"compaction"`
	StreamIdleTimeoutS  *float64 `json:"stream_idle_timeout_s"`
	Budget              *float64 `json:"budget"`
	ToolSearchThreshold *float64 `json:"tool_search_threshold"`
	Tools               *struct {
		Bash *struct {
			MaxOutputChars *int `json:"max_output_chars"`
			TimeoutS       *int `json:"timeout_s"`
			MaxBackground  *int `json:"max_background"`
		} `json:"bash"`
		SavedOutputMaxBytes  *int64 `json:"saved_output_max_bytes"`
		OutputsMaxTotalBytes *int64 `json:"outputs_max_total_bytes"`
		Read                 *struct {
			MaxLines      *int `json:"max_lines"`
			MaxLineLength *int `json:"max_line_length"`
		} `json:"read"`
		WebFetch  *webFetchFile  `json:"web_fetch"`
		WebSearch *webSearchFile `json:"web_search"`
	} `json:"tools"`
	Permissions permissionsFile `json:"permissions"`
	Snapshots   *snapshotsFile  `json:"snapshots"`
	Checkpoints *snapshotsFile  `json:"checkpoints"`
	UI          *struct {
		Mode   *string `json:"mode"`
		Notify *string `json:"notify"`
		Vi     *bool   `json:"vi"`
	} `json:"ui"`
	MCP map[string]MCPServer `json:"mcp"`
	// MCPAllowEnv is the user's grant of environment variables to the
	// servers a project declares (mcp.go); a project file's is ignored.
	MCPAllowEnv map[string][]string `json:"mcp_allow_env"`
	Task        *struct {
		Tools       []string `json:"tools"`
		Model       *string  `json:"model"`
		MaxSteps    *int     `json:"max_steps"`
		MaxParallel *int     `json:"max_parallel"`
	} `json:"task"`
	Hooks Hooks `json:"hooks"`
	// Mode is the session's starting mode: "default" or "plan"
	// (internal/plan); a project file may set it.
	Mode *string `json:"mode"`
	Todo *struct {
		Reminder *bool `json:"reminder"`
	} `json:"todo"`
	// Verify is "verify": a bool or {enabled, commands} (verify.go).
	Verify  *verifyFile   `json:"verify"`
	Sandbox *sandboxEntry `json:"sandbox"`
	Memory  *memoryFile   `json:"memory"`
	// LSP is the language servers' group (lsp.go): servers by name
	// beside the group's settings, read by applyLSP.
	LSP map[string]json.RawMessage `json:"lsp"`

	// unknown are the file's keys this shape lacks (unknownkeys.go),
	// warned about by whoever applies the file.
	unknown []unknownKey
}

// unknownWarnings are the warnings about a file's unknown keys, the file
// read from path.
func unknownWarnings(unknown []unknownKey, path string) []string {
	var ws []string
	for _, k := range unknown {
		ws = append(ws, k.warning(path))
	}
	return ws
}

// modelEntry is a models entry of a config file; pointers tell set from
// unset (they shadow ModelInfo's fields of the same JSON name), and a limit
// of 0 is unset.
type modelEntry struct {
	ModelInfo
	Price              *priceEntry `json:"price"`
	ReasoningRoundtrip *bool       `json:"reasoning_roundtrip"`
	Vision             *bool       `json:"vision"`
	// Tools false sends the model no tools; true (the default) sends them.
	Tools *bool `json:"tools"`
	// TrustUsage is honoured from the user's file only.
	TrustUsage *bool `json:"trust_usage"`
}

// priceEntry is a price in a config file: each figure set or not.
type priceEntry struct {
	Input      *float64 `json:"input"`
	Output     *float64 `json:"output"`
	CacheRead  *float64 `json:"cache_read"`
	CacheWrite *float64 `json:"cache_write"`
}

// apply merges a file into c. Only a user file may set the endpoint,
// permissions and prices: a project file's models entries change limits
// only, over the user's entry or the catalog's.
func (c *Config) apply(f *file, trusted bool) {
	setStr := func(dst *string, v *string) {
		if v != nil && *v != "" {
			*dst = *v
		}
	}
	setStr(&c.Model, f.Model)
	if f.Model != nil && *f.Model != "" {
		c.ModelConfigured = true
	}
	setStr(&c.SmallModel, f.SmallModel)
	for name, e := range f.Models {
		c.Models[name] = mergeModel(c.Models, name, e, trusted)
	}
	if cp := f.Compaction; cp != nil {
		setBool(&c.Compaction.Auto, cp.Auto)
		setStr(&c.Compaction.Strategy, cp.Strategy)
		setNum(&c.Compaction.Threshold, cp.Threshold)
		if cp.Threshold != nil {
			c.thresholdSet = true
			// A threshold and no strategy means the threshold strategy:
			// the default (overflow) would ignore it.
			if cp.Strategy == nil || *cp.Strategy == "" {
				c.Compaction.Strategy = "threshold"
			}
		}
		setNum(&c.Compaction.TailTurns, cp.TailTurns)
		setBool(&c.Compaction.Prune, cp.Prune)
		setNum(&c.Compaction.PruneProtect, cp.PruneProtect)
		setNum(&c.Compaction.PruneMinimum, cp.PruneMinimum)
		if trusted {
			// Wave-2 settings are the user's alone (DESIGN's contract).
			setNum(&c.Compaction.SummaryMaxTokens, cp.SummaryMax)
			setNum(&c.Compaction.TailTokens, cp.TailTokens)
		}
	}
	if t := f.Tools; t != nil {
		if b := t.Bash; b != nil {
			setNum(&c.Tools.BashMaxOutputChars, b.MaxOutputChars)
			setNum(&c.Tools.BashTimeoutS, b.TimeoutS)
			if trusted { // processes left running are the user's to allow
				setNum(&c.Tools.BashMaxBackground, b.MaxBackground)
			}
		}
		if r := t.Read; r != nil {
			setNum(&c.Tools.ReadMaxLines, r.MaxLines)
			setNum(&c.Tools.ReadMaxLineLength, r.MaxLineLength)
		}
		c.applyWeb(t.WebFetch, t.WebSearch, trusted)
	}
	if f.Mode != nil {
		switch *f.Mode {
		case ModeDefault, ModePlan:
			c.Mode = *f.Mode
		default:
			c.Warnings = append(c.Warnings, fmt.Sprintf("mode %q is ignored: want %q or %q", *f.Mode, ModeDefault, ModePlan))
		}
	}
	if t := f.Todo; t != nil && t.Reminder != nil {
		v := *t.Reminder
		c.Tools.TodoReminder = &v
	}
	c.applyVerify(f.Verify)
	if !trusted {
		return
	}
	setStr(&c.BaseURL, f.BaseURL)
	c.applyMemory(f.Memory) // memory.go
	if v := f.Budget; v != nil && *v >= 0 {
		c.Budget = *v
	}
	setNum(&c.ToolSearchThreshold, f.ToolSearchThreshold)
	if v := f.StreamIdleTimeoutS; v != nil && *v > 0 {
		c.StreamIdleTimeout = time.Duration(*v * float64(time.Second))
	}
	if t := f.Tools; t != nil {
		setNum(&c.Tools.SavedOutputMaxBytes, t.SavedOutputMaxBytes)
		setNum(&c.Tools.OutputsMaxTotalBytes, t.OutputsMaxTotalBytes)
	}
	for tool, mode := range f.Permissions {
		c.Permissions[tool] = mode
	}
	for _, sn := range []*snapshotsFile{f.Snapshots, f.Checkpoints} { // the alias first
		if sn != nil {
			setBool(&c.Snapshots.Enabled, sn.Enabled)
			setNum(&c.Snapshots.MaxFileBytes, sn.MaxFileBytes)
			setNum(&c.Snapshots.IgnoredMaxBytes, sn.IgnoredMaxBytes)
			setNum(&c.Snapshots.CapBytes, sn.CapBytes)
			setNum(&c.Snapshots.MaxFiles, sn.MaxFiles)
			if v := sn.FirstSnapshotS; v != nil && *v >= 0 {
				c.Snapshots.FirstSnapshot = time.Duration(*v * float64(time.Second))
			}
		}
	}
	if f.UI != nil {
		setStr(&c.UI.Mode, f.UI.Mode)
		setStr(&c.UI.Notify, f.UI.Notify)
		if f.UI.Vi != nil {
			c.UI.Vi = *f.UI.Vi
		}
	}
	if t := f.Task; t != nil {
		if t.Tools != nil {
			c.Task.Tools = t.Tools
		}
		if t.Model != nil {
			c.Task.Model = *t.Model
		}
		if t.MaxSteps != nil {
			c.Task.MaxSteps = *t.MaxSteps
		}
		if t.MaxParallel != nil {
			c.Task.MaxParallel = *t.MaxParallel
		}
	}
	if f.Hooks != nil {
		c.Hooks = f.Hooks
	}
}

// mergeModel returns the entry for name after a file's entry e: the fields
// e sets, over the entry an earlier file gave, else the catalog's, field by
// field — declaring a catalog model's window keeps its price. Only a user
// file (trusted) may set a price.
func mergeModel(models map[string]ModelInfo, name string, e modelEntry, trusted bool) ModelInfo {
	info, ok := models[name]
	if !ok {
		if info, ok = lookupCatalog(name); !ok {
			info = unknownModel(name)
		}
	}
	for _, f := range []struct {
		dst *int64
		v   int64
	}{
		{&info.ContextWindow, e.ContextWindow},
		{&info.MaxOutput, e.MaxOutput},
		{&info.InputLimit, trustedOnly(e.InputLimit, trusted)},
	} {
		if f.v > 0 {
			*f.dst = f.v
		}
	}
	setBool(&info.ReasoningRoundtrip, e.ReasoningRoundtrip)
	if e.Tools != nil {
		info.NoTools = !*e.Tools
	}
	switch e.Cache {
	case CacheAutomatic, CacheExplicit, CacheNone:
		info.Cache = e.Cache
	}
	if trusted {
		if e.Effort != "" {
			info.Effort = e.Effort
		}
		setBool(&info.TrustUsage, e.TrustUsage)
		setBool(&info.Vision, e.Vision)
		if e.Vision != nil {
			info.VisionUnknown = false
		}
	}
	if p := e.Price; p != nil && trusted {
		setNum(&info.Price.Input, p.Input)
		setNum(&info.Price.Output, p.Output)
		setNum(&info.Price.CacheRead, p.CacheRead)
		setNum(&info.Price.CacheWrite, p.CacheWrite)
	}
	return info
}

// trustedOnly is v from a user file and nothing from a project file.
func trustedOnly(v int64, trusted bool) int64 {
	if !trusted {
		return 0
	}
	return v
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func setBool(dst *bool, v *bool) {
	if v != nil {
		*dst = *v
	}
}

func setNum[T int | int64 | float64](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// maxConfigFileBytes bounds a configuration file; a larger one is skipped.
const maxConfigFileBytes = 1 << 20

// readFile reads and parses a configuration file by the tools' rules
// (internal/safefile): a link must lead inside home (unless home is ""),
// only a regular file of at most maxConfigFileBytes is read, without
// blocking. A missing file is nil unless mustExist. A refused file is an
// error when mustExist (the file named with --config), else nil with a
// warning naming it.
func readFile(path, home string, mustExist bool) (f *file, warning string, err error) {
	data, err := safefile.Read(context.Background(), path, home, maxConfigFileBytes)
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist) && !mustExist:
		return nil, "", nil
	case safefile.Refused(err) && !mustExist:
		return nil, safefile.Warning(path, err), nil
	default:
		return nil, "", fmt.Errorf("read config %s: %w", path, errors.Unwrap(err))
	}
	f = new(file)
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(f); err != nil {
		return nil, "", fmt.Errorf("parse config %s: %w", path, err)
	}
	f.unknown = unknownKeys(data, reflect.TypeOf(file{}))
	return f, "", nil
}

// findProjectFile looks for .agent/config.json in dir and its parents; a
// link in it must stay inside the directory that holds .agent. The
// nearest one found is the project's, used or (refused) skipped with a
// warning.
func findProjectFile(dir string) (f *file, path, warning string, err error) {
	if dir == "" {
		return nil, "", "", nil
	}
	for d := dir; ; {
		path := filepath.Join(d, ".agent", "config.json")
		if f, warning, err := readFile(path, d, false); err != nil || f != nil || warning != "" {
			return f, path, warning, err
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, "", "", nil
		}
		d = parent
	}
}
