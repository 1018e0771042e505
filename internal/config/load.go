package config

// Load in four steps, each a method of its own so that the order of
// precedence reads off Load: the defaults, then the files (the user's,
// then the project's, which may only narrow what is billed or granted),
// then the environment, then the flags, and last the checks and warnings
// that need the merged result. A later step overrides an earlier one;
// warnings are appended in the order the steps run.

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Load resolves the configuration for the directory dir. getenv reads the
// environment (os.Getenv in production, a map in tests).
func Load(flags Flags, dir string, getenv func(string) string) (*Config, error) {
	c := defaults(dir)
	// The data directory first: the refreshed catalog in it is the one
	// the files' model entries are merged over.
	c.DataDir = resolveDataDir(flags, getenv)
	if w := UseCatalogFile(filepath.Join(c.DataDir, CatalogFileName)); w != "" {
		c.Warnings = append(c.Warnings, w)
	}
	if err := c.readUserFile(flags.ConfigFile, getenv); err != nil {
		return nil, err
	}
	project, err := c.readProjectFile(dir)
	if err != nil {
		return nil, err
	}
	c.applyEnv(getenv)
	c.applyFlags(flags)
	if err := c.finish(getenv, project); err != nil {
		return nil, err
	}
	return c, nil
}

// projectModels are the model and small model a project file named ("" when
// none), remembered to warn when they are the ones that apply.
type projectModels struct {
	model, small string
}

// defaults is the configuration before any file, variable or flag.
func defaults(dir string) *Config {
	return &Config{
		Model:   DefaultModel,
		BaseURL: DefaultBaseURL,
		Dir:     dir,
		Models:  map[string]ModelInfo{},
		Compaction: Compaction{
			Auto: true, Strategy: "overflow", Threshold: 0.8, TailTurns: 2,
			Prune: true, SummaryMaxTokens: DefaultSummaryMaxTokens,
		},
		Tools: Tools{
			BashMaxOutputChars: 30000, BashTimeoutS: 120, BashMaxBackground: 8,
			ReadMaxLines: 2000, ReadMaxLineLength: 2000,
			SavedOutputMaxBytes: DefaultSavedOutputMaxBytes, OutputsMaxTotalBytes: DefaultOutputsMaxTotalBytes,
			WebFetch: WebFetch{Enabled: true},
		},
		StreamIdleTimeout:   DefaultStreamIdleTimeout,
		Snapshots:           Snapshots{Enabled: true, MaxFileBytes: DefaultSnapshotMaxFileBytes, IgnoredMaxBytes: DefaultSnapshotIgnoredMaxBytes, CapBytes: DefaultSnapshotCapBytes, MaxFiles: DefaultSnapshotMaxFiles, FirstSnapshot: DefaultSnapshotFirst},
		UI:                  UI{Mode: UIFullscreen, Notify: NotifyAuto},
		Verify:              Verify{Enabled: true},
		ToolSearchThreshold: DefaultToolSearchThreshold,
		Task:                Task{Tools: DefaultTaskTools, MaxSteps: DefaultTaskMaxSteps, MaxParallel: DefaultTaskMaxParallel},
		Permissions:         map[string]string{"bash": PermAsk, "edit": PermAsk, "write": PermAsk},
	}
}

// readUserFile applies the user's file: the one --config (flagFile) or
// AGENT_CONFIG names, which must exist, or else the default one under the
// config home, if there is one.
func (c *Config) readUserFile(flagFile string, getenv func(string) string) error {
	userFile := flagFile
	explicit := userFile != ""
	if userFile == "" {
		userFile = getenv("AGENT_CONFIG")
		explicit = userFile != ""
	}
	if userFile == "" {
		userFile = filepath.Join(configHome(getenv), "agent", "config.json")
	}
	// The user's own file is kept to its directory; one named with
	// --config or AGENT_CONFIG is the user's choice, wherever it leads.
	userHome := filepath.Dir(userFile)
	if explicit {
		userHome = ""
	}
	uf, warning, err := readFile(userFile, userHome, explicit)
	if err != nil {
		return err
	}
	if warning != "" {
		c.Warnings = append(c.Warnings, warning)
	}
	if uf != nil {
		c.UserFile = userFile
		c.Warnings = append(c.Warnings, unknownWarnings(uf.unknown, userFile)...)
		if uf.APIKey != nil {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: api_key is ignored; set OPENAI_API_KEY in the environment", userFile))
		}
		c.apply(uf, true)
		if err := c.applySandbox(uf.Sandbox); err != nil {
			return fmt.Errorf("%s: %w", userFile, err)
		}
		if err := c.applyLSP(uf.LSP); err != nil { // lsp.go
			return fmt.Errorf("%s: %w", userFile, err)
		}
		c.MCPAllowEnv = uf.MCPAllowEnv
		c.addMCP(uf.MCP, "")
	}
	return nil
}

// readProjectFile applies the project file of dir or a parent, if any:
// what a project file may not set is ignored with a warning each.
func (c *Config) readProjectFile(dir string) (projectModels, error) {
	var project projectModels
	pf, path, warning, err := findProjectFile(dir)
	switch {
	case err != nil:
		return project, err
	case warning != "":
		c.Warnings = append(c.Warnings, warning)
		return project, nil
	case pf == nil:
		return project, nil
	}
	c.ProjectFile = path
	c.Warnings = append(c.Warnings, unknownWarnings(pf.unknown, path)...)
	project.model, project.small = deref(pf.Model), deref(pf.SmallModel)
	for name, set := range map[string]bool{
		"base_url": pf.BaseURL != nil, "api_key": pf.APIKey != nil, "permissions": pf.Permissions != nil,
		"stream_idle_timeout_s":         pf.StreamIdleTimeoutS != nil,
		"budget":                        pf.Budget != nil,
		"tool_search_threshold":         pf.ToolSearchThreshold != nil,
		"tools.saved_output_max_bytes":  pf.Tools != nil && pf.Tools.SavedOutputMaxBytes != nil,
		"tools.outputs_max_total_bytes": pf.Tools != nil && pf.Tools.OutputsMaxTotalBytes != nil,
		"tools.bash.max_background":     pf.Tools != nil && pf.Tools.Bash != nil && pf.Tools.Bash.MaxBackground != nil,
		"compaction.summary_max_tokens": pf.Compaction != nil && pf.Compaction.SummaryMax != nil,
		"compaction.tail_tokens":        pf.Compaction != nil && pf.Compaction.TailTokens != nil,
		"snapshots":                     pf.Snapshots != nil,
		"checkpoints":                   pf.Checkpoints != nil,
		"ui.mode":                       pf.UI != nil && pf.UI.Mode != nil,
		"ui.notify":                     pf.UI != nil && pf.UI.Notify != nil,
		"ui.vi":                         pf.UI != nil && pf.UI.Vi != nil,
		"task":                          pf.Task != nil,
		"mcp_allow_env":                 pf.MCPAllowEnv != nil,
		"sandbox":                       pf.Sandbox != nil,
		"memory":                        pf.Memory != nil,
		"lsp":                           pf.LSP != nil,
	} {
		if set {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %s is ignored in a project file; set it in your user config", path, name))
		}
	}
	if t := pf.Tools; t != nil {
		ignored := webProjectIgnored(t.WebFetch, t.WebSearch)
		for _, name := range ignored {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %s is ignored in a project file; set it in your user config", path, name))
		}
	}
	for _, name := range sortedKeys(pf.Models) {
		if pf.Models[name].InputLimit > 0 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: models.%s.input_limit is ignored in a project file; set it in your user config", path, name))
		}
		if pf.Models[name].Vision != nil {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: models.%s.vision is ignored in a project file; set it in your user config", path, name))
		}
		if pf.Models[name].Effort != "" {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: models.%s.effort is ignored in a project file; set it in your user config", path, name))
		}
		if pf.Models[name].Price != nil {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: models.%s.price is ignored in a project file; prices come from your user config or the catalog", path, name))
		}
	}
	c.apply(pf, false)
	c.addMCP(pf.MCP, path)
	c.ProjectHooks = pf.Hooks
	return project, nil
}

// applyEnv applies the environment: AGENT_MODEL, OPENAI_BASE_URL and
// OPENAI_API_KEY (the only source of the key); AGENT_DATA_DIR was read
// first (resolveDataDir), AGENT_CATALOG_URL is read by CatalogURL.
func (c *Config) applyEnv(getenv func(string) string) {
	if v := getenv("AGENT_MODEL"); v != "" {
		c.Model, c.ModelExplicit, c.ModelConfigured = v, true, true
	}
	if v := getenv("OPENAI_BASE_URL"); v != "" {
		c.BaseURL = v
	}
	c.APIKey = getenv("OPENAI_API_KEY")
}

// resolveDataDir is the data directory: --data-dir, else AGENT_DATA_DIR,
// else agent under the XDG data home; made absolute.
func resolveDataDir(flags Flags, getenv func(string) string) string {
	d := flags.DataDir
	if d == "" {
		d = getenv("AGENT_DATA_DIR")
	}
	if d == "" {
		d = filepath.Join(dataHome(getenv), "agent")
	}
	if abs, err := filepath.Abs(d); err == nil {
		d = abs
	}
	return d
}

// applyFlags applies the command line's --model and --base-url
// (--config was read with the user file, --data-dir first).
func (c *Config) applyFlags(flags Flags) {
	if flags.Model != "" {
		c.Model, c.ModelExplicit, c.ModelConfigured = flags.Model, true, true
	}
	if flags.BaseURL != "" {
		c.BaseURL = flags.BaseURL
	}
}

// finish completes the merged configuration: the base URL without its trailing slash; then it
// validates it and adds the warnings that depend on the result (a
// threshold its strategy ignores, the project's models that apply, a model
// the catalog does not know).
func (c *Config) finish(getenv func(string) string, project projectModels) error {
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	c.LSP.lspDefaults()
	if err := c.validate(); err != nil {
		return err
	}
	c.Warnings = append(c.Warnings, c.dropUntakenEfforts()...)
	if c.thresholdSet && c.Compaction.Strategy != "threshold" {
		c.Warnings = append(c.Warnings, fmt.Sprintf("compaction.threshold is ignored with strategy %q: it applies to strategy \"threshold\" (set alone, it selects that strategy)", c.Compaction.Strategy))
	}
	// A repository may suggest the models it is billed to, never silently.
	if pf := c.ProjectFile; pf != "" {
		if c.Model == project.model && project.model != "" && !c.ModelExplicit {
			c.Warnings = append(c.Warnings, fmt.Sprintf("project file %s sets model %s; --model or AGENT_MODEL overrides it", pf, project.model))
		}
		if c.SmallModel == project.small && project.small != "" {
			c.Warnings = append(c.Warnings, fmt.Sprintf("project file %s sets small_model %s (session titles are requested from it)", pf, project.small))
		}
	}
	if _, known := c.ModelInfo(c.Model); !known {
		c.Warnings = append(c.Warnings, fmt.Sprintf(
			"model %q is not in the catalog: assuming a %d-token window and %d output tokens; set models.%s in the config to change that",
			c.Model, UnknownContextWindow, UnknownMaxOutput, c.Model))
	}
	return nil
}
