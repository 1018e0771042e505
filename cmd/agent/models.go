package main

// `agent models` and the first-run model choice of `agent run`: the
// configured server's own models (GET /v1/models, bounded by
// provider.ModelListTimeout) merged with the configured ones and the
// catalog.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctxloop/agent/internal/config"
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
	// Current: a new session would use it.
	Current bool `json:"current"`
}

func newModelsCmd(g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "models",
		Short: "List the models of the configured server and the catalog",
		Long: `models lists the models the configured server offers (its GET /v1/models,
asked with a 3 s timeout), then those named in the config, then the
built-in catalog with its context windows. When the server cannot be
asked, the catalog is listed with a note on stderr.`,
		Example: `  agent models
  agent models --base-url http://127.0.0.1:11434/v1
  agent models --json | jq -r '.[] | select(.served).id'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return listModels(cmd.Context(), g, asJSON, os.Stdout)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func listModels(ctx context.Context, g *globalFlags, asJSON bool, out io.Writer) error {
	a, err := loadApp(g)
	if err != nil {
		return err
	}
	served, err := a.servedModels(ctx)
	if err != nil {
		fmt.Fprintf(os.Stderr, "agent: %v; listing the catalog\n", err)
	}
	rows := modelRows(a.cfg, served)
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
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
		if r.Known {
			notes = append(notes, fmt.Sprintf("%dK window", r.ContextWindow/1000))
		} else {
			notes = append(notes, "limits unknown")
		}
		fmt.Fprintf(out, "%s%-40s %s\n", mark, r.ID, strings.Join(notes, ", "))
	}
	return nil
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
		r := modelRow{ID: id, Served: isServed, Known: known, Current: id == cfg.Model && !cfg.NeedsModelChoice()}
		if known {
			r.ContextWindow, r.MaxOutput = info.ContextWindow, info.MaxOutput
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
