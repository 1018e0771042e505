package main

// `agent models` and the first-run model choice of `agent run`: the
// configured server's own models (GET /v1/models, bounded by
// provider.ModelListTimeout) merged with the configured ones and the
// catalog.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/lastmodel"
	"github.com/ctxloop/agent/internal/provider"
)

// modelRow is one line of `agent models --json`.
type modelRow struct {
	ID string `json:"id"`
	// Served: the configured server lists it.
	Served bool `json:"served"`
	// Known: its limits come from the config or the catalog.
	Known         bool  `json:"known"`
	ContextWindow int64 `json:"context_window,omitempty"`
	MaxOutput     int64 `json:"max_output,omitempty"`
	// Current: a new session would use it; CurrentFrom, on that row, says
	// where it came from (modelSource).
	Current     bool   `json:"current"`
	CurrentFrom string `json:"current_from,omitempty"`
	// InputLimit is 0 when the window is the only cap.
	InputLimit int64 `json:"input_limit,omitempty"`
	// Price in USD per million tokens; null when unknown.
	Price              *config.Price `json:"price,omitempty"`
	Vision             bool          `json:"vision"`
	ReasoningRoundtrip bool          `json:"reasoning_roundtrip"`
	Cache              string        `json:"cache,omitempty"`
	Tools              bool          `json:"tools"`
	// Reasoning, Efforts and Interleaved are the catalog's: the model
	// reasons, the effort levels it takes, the field its reasoning
	// travels in between tool steps.
	Reasoning   bool           `json:"reasoning,omitempty"`
	Efforts     config.Efforts `json:"efforts,omitempty"`
	Interleaved string         `json:"interleaved,omitempty"`
	// Source and AsOf say where the catalog's figures come from ("config"
	// for a model only the config knows).
	Source string `json:"source,omitempty"`
	AsOf   string `json:"as_of,omitempty"`
	// Overridden names the catalog's figures the config changes
	// ("context_window", "price.input").
	Overridden []string `json:"overridden,omitempty"`
}

func newModelsCmd(g *globalFlags) *cobra.Command {
	var asJSON, refresh bool
	cmd := &cobra.Command{
		Use:   "models",
		Short: "List the models of the configured server and the catalog",
		Long: `models lists the models the configured server offers (its GET /v1/models,
asked with a 3 s timeout), then those named in the config, then the
built-in catalog: window, input limit, output, prices in USD per million
tokens (input, output, cache read, cache write; a cache write of 0 costs
the input price), vision, reasoning sent back, prompt-cache style, the
source and date of the figures, and which of them the config overrides.
When the server cannot be asked, the catalog is listed with a note on
stderr.

The catalog is the models.dev data built into the binary (its date is on
the first line), or the copy --refresh saved in the data directory, which
every later run uses, offline. --refresh fetches the current data from
AGENT_CATALOG_URL (default https://models.dev/api.json; 64 MiB and 60 s at
most), checks that it reads, and only then replaces the saved copy. A saved
copy that cannot be read is set aside with a warning naming it: the
embedded catalog is used.`,
		Example: `  agent models
  agent models --refresh
  agent models --base-url http://127.0.0.1:11434/v1
  agent models --json | jq -r '.[] | select(.served).id'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return listModels(cmd.Context(), g, asJSON, refresh, os.Stdout)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&refresh, "refresh", false, "fetch the current models.dev data into the data directory first")
	return cmd
}

func listModels(ctx context.Context, g *globalFlags, asJSON, refresh bool, out io.Writer) error {
	a, err := loadApp(g)
	if err != nil {
		return err
	}
	a.warn()
	if refresh {
		r, err := refreshCatalog(ctx, config.CatalogURL(os.Getenv), a.cfg.DataDir)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "agent: catalog refreshed: %d models from %s as of %s, saved to %s\n", r.models, r.url, r.asOf, r.path)
	}
	served, err := a.servedModels(ctx)
	if err != nil {
		fmt.Fprintf(os.Stderr, "agent: %v; listing the catalog\n", err)
	}
	rows := modelRows(a.cfg, served)
	for i := range rows {
		if rows[i].Current {
			rows[i].CurrentFrom = modelSource(a.cfg, a.modelFrom)
		}
	}
	if asJSON {
		fmt.Fprintln(os.Stderr, "agent:", catalogLine(config.CurrentCatalog()))
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	fmt.Fprintln(out, catalogLine(config.CurrentCatalog()))
	fmt.Fprintln(out, modelSourceLine(a.cfg, a.modelFrom))
	fmt.Fprint(out, formatModelRows(rows))
	return nil
}

// formatModelRows renders `agent models` as a table: prices in USD per
// million tokens (input, output, cache read, cache write), VIS for image
// input, RT for reasoning sent back, and which figures the config sets.
func formatModelRows(rows []modelRow) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  MODEL\tWINDOW\tINPUT\tOUTPUT\t$IN\t$OUT\t$CREAD\t$CWRITE\tVIS\tRT\tCACHE\tNOTES\tSOURCE")
	tokensK := func(n int64) string {
		if n == 0 {
			return "-"
		}
		return fmt.Sprintf("%dK", n/1000)
	}
	yes := func(v bool) string {
		if v {
			return "yes"
		}
		return "-"
	}
	for _, r := range rows {
		mark := "  "
		if r.Current {
			mark = "* "
		}
		var notes []string
		if r.Served {
			notes = append(notes, "served")
		}
		if !r.Known {
			notes = append(notes, "limits unknown")
		}
		if !r.Tools {
			notes = append(notes, "no tools")
		}
		if r.Efforts != 0 {
			notes = append(notes, "effort "+r.Efforts.String())
		}
		if len(r.Overridden) > 0 {
			notes = append(notes, "config sets "+strings.Join(r.Overridden, " "))
		}
		prices := []string{"-", "-", "-", "-"}
		if p := r.Price; p != nil {
			for i, v := range []float64{p.Input, p.Output, p.CacheRead, p.CacheWrite} {
				prices[i] = strconv.FormatFloat(v, 'f', -1, 64)
			}
		}
		src := "-"
		if r.Source != "" {
			src = strings.TrimSpace(r.AsOf + " " + r.Source)
		}
		window, input, output := tokensK(r.ContextWindow), tokensK(r.InputLimit), tokensK(r.MaxOutput)
		if !r.Known {
			window, output = "-", "-"
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", mark, r.ID,
			window, input, output, prices[0], prices[1], prices[2], prices[3],
			yes(r.Vision), yes(r.ReasoningRoundtrip), cmp.Or(r.Cache, "-"), cmp.Or(strings.Join(notes, ", "), "-"), src)
	}
	tw.Flush()
	return b.String()
}

// servedModels asks the configured server for its models. OpenAI's own
// endpoint without a key is not asked.
func (a *app) servedModels(ctx context.Context) ([]string, error) {
	if err := a.cfg.CheckCredentials(); err != nil {
		return nil, errors.New("no API key, so the server's models were not asked")
	}
	lister, ok := a.provider().(provider.ModelLister)
	if !ok {
		return nil, nil
	}
	ids, err := lister.ListModels(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the models of %s: %w", a.cfg.BaseURL, err)
	}
	return ids, nil
}

// modelRows merges the server's models (first, in its order), the
// config's and the catalog's, each once.
func modelRows(cfg *config.Config, served []string) []modelRow {
	seen := map[string]bool{}
	var rows []modelRow
	add := func(id string, isServed bool) {
		if id == "" || seen[id] {
			return
		}
		seen[id] = true
		info, known := cfg.ModelInfo(id)
		r := modelRow{ID: id, Served: isServed, Known: known, Current: id == cfg.Model && !cfg.NeedsModelChoice(), Tools: !info.NoTools}
		if known {
			r.ContextWindow, r.MaxOutput, r.InputLimit = info.ContextWindow, info.MaxOutput, info.InputLimit
			r.Vision, r.ReasoningRoundtrip, r.Cache = info.Vision, info.ReasoningRoundtrip, info.Cache
			r.Reasoning, r.Efforts, r.Interleaved = info.Reasoning, info.Efforts, info.Interleaved
			if info.Price != (config.Price{}) {
				r.Price = &info.Price
			}
		}
		_, configured := cfg.Models[id]
		if base, src, ok := config.CatalogEntry(id); ok {
			r.Source, r.AsOf = src.Source, src.AsOf
			if configured {
				r.Overridden = overriddenFields(base, info)
			}
		} else if configured {
			r.Source = "config"
		}
		rows = append(rows, r)
	}
	for _, id := range served {
		add(id, true)
	}
	configured := make([]string, 0, len(cfg.Models))
	for id := range cfg.Models {
		configured = append(configured, id)
	}
	sort.Strings(configured)
	for _, id := range configured {
		add(id, false)
	}
	for _, id := range config.CatalogModels() {
		add(id, false)
	}
	return rows
}

// overriddenFields names the figures of effective that differ from the
// catalog's entry base, by their config names.
func overriddenFields(base, effective config.ModelInfo) []string {
	var out []string
	for _, f := range []struct {
		name string
		diff bool
	}{
		{"context_window", base.ContextWindow != effective.ContextWindow},
		{"max_output", base.MaxOutput != effective.MaxOutput},
		{"input_limit", base.InputLimit != effective.InputLimit},
		{"price.input", base.Price.Input != effective.Price.Input},
		{"price.output", base.Price.Output != effective.Price.Output},
		{"price.cache_read", base.Price.CacheRead != effective.Price.CacheRead},
		{"price.cache_write", base.Price.CacheWrite != effective.Price.CacheWrite},
		{"vision", base.Vision != effective.Vision},
		{"reasoning_roundtrip", base.ReasoningRoundtrip != effective.ReasoningRoundtrip},
		{"cache", base.Cache != effective.Cache},
		{"tools", base.NoTools != effective.NoTools},
	} {
		if f.diff {
			out = append(out, f.name)
		}
	}
	return out
}

// chooseModel settles the model of a new headless session when the user
// named none and the server is not OpenAI's: the server's only model, or a
// usage error saying what to pass.
func (a *app) chooseModel(ctx context.Context) error {
	if !a.cfg.NeedsModelChoice() {
		return nil
	}
	served, err := a.servedModels(ctx)
	if model, ok := config.SoleServedModel(served); ok {
		a.cfg.Model, a.cfg.ModelConfigured = model, true
		fmt.Fprintf(os.Stderr, "agent: using %s, the only model %s offers (pass --model to choose another)\n", model, a.cfg.BaseURL)
		return nil
	}
	return usageError("%s", noModelMessage(a.cfg.BaseURL, served, err))
}

// noModelMessage says which flag to pass, and what the server offers.
func noModelMessage(baseURL string, served []string, listErr error) string {
	msg := fmt.Sprintf("no model chosen for %s: pass --model NAME", baseURL)
	switch {
	case listErr != nil:
		return msg + fmt.Sprintf(" (set AGENT_MODEL or \"model\" in the config to make it stick; %v)", listErr)
	case len(served) == 0:
		return msg + " (the server lists no models)"
	}
	return msg + fmt.Sprintf(" (the server offers: %s)", strings.Join(served, ", "))
}

// rememberedModel gives cfg the model last chosen for dir on its server
// (package lastmodel) when no flag, environment variable or config file
// named one, and says whose choice it was.
func rememberedModel(cfg *config.Config, dir string) lastmodel.Scope {
	if cfg.ModelConfigured {
		return lastmodel.None
	}
	model, scope := lastmodel.Lookup(cfg.DataDir, dir, cfg.BaseURL)
	if scope != lastmodel.None {
		cfg.Model, cfg.ModelConfigured = model, true
	}
	return scope
}

// modelSource names where cfg.Model came from: "project memory",
// "global memory", "flag or environment", "config", "default" or "none".
func modelSource(cfg *config.Config, from lastmodel.Scope) string {
	switch {
	case from == lastmodel.Project:
		return "project memory"
	case from == lastmodel.Global:
		return "global memory"
	case cfg.ModelExplicit:
		return "flag or environment"
	case cfg.ModelConfigured:
		return "config"
	case cfg.NeedsModelChoice():
		return "none"
	}
	return "default"
}

// modelSourceLine says which model a new session uses and where it came
// from, for `agent models`.
func modelSourceLine(cfg *config.Config, from lastmodel.Scope) string {
	switch modelSource(cfg, from) {
	case "project memory":
		return fmt.Sprintf("current model: %s (remembered: last chosen in this project, in %s)", cfg.Model, lastmodel.Path(cfg.DataDir))
	case "global memory":
		return fmt.Sprintf("current model: %s (remembered: last chosen for this server, in %s)", cfg.Model, lastmodel.Path(cfg.DataDir))
	case "flag or environment":
		return fmt.Sprintf("current model: %s (from --model or AGENT_MODEL)", cfg.Model)
	case "config":
		return fmt.Sprintf("current model: %s (from a config file)", cfg.Model)
	case "none":
		return "current model: none chosen (the chat asks; pass --model to agent run)"
	}
	return fmt.Sprintf("current model: %s (the default)", cfg.Model)
}
