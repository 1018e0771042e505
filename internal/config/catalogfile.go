package config

// The refreshed catalog in the data directory (CatalogFileName): rows
// already read from the models.dev data and filtered, so that a start-up
// parses only them. It is written whole or not at all (a temporary file
// renamed over it) with mode 0600, and read by Load; a file that cannot
// be read or parsed is never fatal: the embedded catalog is used, with a
// warning naming the file.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/ctxloop/agent/internal/safefile"
)

// DefaultCatalogURL is where `agent models --refresh` fetches the
// models.dev data unless AGENT_CATALOG_URL says otherwise.
const DefaultCatalogURL = "https://models.dev/api.json"

// CatalogURL is where `agent models --refresh` fetches the data:
// AGENT_CATALOG_URL, else DefaultCatalogURL.
func CatalogURL(getenv func(string) string) string {
	if v := getenv("AGENT_CATALOG_URL"); v != "" {
		return v
	}
	return DefaultCatalogURL
}

// CatalogFileName is the refreshed catalog's name in the data directory.
const CatalogFileName = "catalog.json"

// catalogFileFormat is the version of the file's layout.
const catalogFileFormat = 1

type catalogFile struct {
	Format int              `json:"format"`
	URL    string           `json:"url"`
	AsOf   string           `json:"as_of"`
	Models []catalogFileRow `json:"models"`
}

type catalogFileRow struct {
	Name          string  `json:"name"`
	Provider      string  `json:"provider"`
	ContextWindow int64   `json:"context_window"`
	MaxOutput     int64   `json:"max_output,omitempty"`
	InputLimit    int64   `json:"input_limit,omitempty"`
	Price         Price   `json:"price"`
	Vision        bool    `json:"vision,omitempty"`
	Tools         bool    `json:"tools"`
	Reasoning     bool    `json:"reasoning,omitempty"`
	Efforts       Efforts `json:"efforts,omitempty"`
	Interleaved   string  `json:"interleaved,omitempty"`
	Cache         string  `json:"cache,omitempty"`
}

// WriteCatalogFile writes rows, read from url and dated asOf, as the
// catalog file at path: atomically, mode 0600.
func WriteCatalogFile(path string, rows []CatalogRow, url, asOf string) error {
	f := catalogFile{Format: catalogFileFormat, URL: url, AsOf: asOf, Models: make([]catalogFileRow, len(rows))}
	for i, r := range rows {
		m := r.Info
		f.Models[i] = catalogFileRow{
			Name: r.Name, Provider: r.Provider, ContextWindow: m.ContextWindow, MaxOutput: m.MaxOutput,
			InputLimit: m.InputLimit, Price: m.Price, Vision: m.Vision, Tools: !m.NoTools,
			Reasoning: m.Reasoning, Efforts: m.Efforts, Interleaved: m.Interleaved, Cache: m.Cache,
		}
	}
	data, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("write catalog %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("write catalog %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".catalog-*.tmp")
	if err != nil {
		return fmt.Errorf("write catalog %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // after the rename, a no-op
	err = tmp.Chmod(0o600)
	if err == nil {
		_, err = tmp.Write(data)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write catalog %s: %w", path, err)
	}
	return nil
}

// maxCatalogFileBytes bounds the catalog file read at every start: the
// rows of the models.dev data, which is fetched at most 64 MiB.
const maxCatalogFileBytes = 64 << 20

// readCatalogFile reads the catalog file at path by internal/safefile's
// rules (a regular file inside the data directory, bounded, never
// blocking on a FIFO); a missing file is fs.ErrNotExist.
func readCatalogFile(path string) (*catalogTable, error) {
	data, err := safefile.Read(context.Background(), path, filepath.Dir(path), maxCatalogFileBytes)
	if e := (*safefile.Error)(nil); errors.As(err, &e) {
		return nil, e.Err // the warning names the path already
	} else if err != nil {
		return nil, err
	}
	var f catalogFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	if f.Format != catalogFileFormat {
		return nil, fmt.Errorf("format %d: want %d (run agent models --refresh)", f.Format, catalogFileFormat)
	}
	if len(f.Models) == 0 {
		return nil, errors.New("no models")
	}
	t := &catalogTable{rows: make([]CatalogRow, len(f.Models)), origin: path, url: f.URL, asOf: f.AsOf}
	for i, m := range f.Models {
		if m.Name == "" || m.ContextWindow <= 0 {
			return nil, fmt.Errorf("model %d (%q): want a name and a context_window", i, m.Name)
		}
		info := ModelInfo{
			ContextWindow: m.ContextWindow, MaxOutput: m.MaxOutput, InputLimit: m.InputLimit, Price: m.Price,
			Vision: m.Vision, NoTools: !m.Tools, Reasoning: m.Reasoning, Efforts: m.Efforts,
			Interleaved: m.Interleaved, Cache: m.Cache,
		}
		familyRules(m.Name, &info)
		t.rows[i] = CatalogRow{Name: m.Name, Provider: m.Provider, Info: info}
	}
	sort.Slice(t.rows, func(i, j int) bool { return t.rows[i].Name < t.rows[j].Name })
	return t, nil
}

// UseCatalogFile puts the catalog file at path in force, or the embedded
// catalog when there is none or it cannot be used; warning (else "") says
// why a file that exists was not used.
func UseCatalogFile(path string) (warning string) {
	t, err := readCatalogFile(path)
	switch {
	case err == nil:
		activeCatalog.Store(t)
		return ""
	case errors.Is(err, fs.ErrNotExist):
		activeCatalog.Store(&embeddedCatalog)
		return ""
	}
	activeCatalog.Store(&embeddedCatalog)
	return fmt.Sprintf("catalog file %s: %v; using the embedded catalog (models.dev, %s); agent models --refresh writes a new one", path, err, ModelsDevDate)
}
