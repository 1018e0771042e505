package main

// `agent models --refresh`: the current models.dev data fetched from
// config.CatalogURL (AGENT_CATALOG_URL, else https://models.dev/api.json),
// read by the catalog's own rules (config.CatalogFromModelsDev) and saved
// in the data directory (config.WriteCatalogFile: atomic, 0600), where
// every later run finds it, offline. Bounded: catalogFetchTimeout for the
// whole exchange, catalogMaxBytes of body. Nothing is replaced unless the
// new data reads: a failed refresh leaves the catalog in force as it was.
// No credential is sent: the API key is the model server's, not the
// catalog's.

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxloop/agent/internal/config"
)

const (
	// catalogFetchTimeout bounds the download of the data (models.dev's
	// api.json was about 2 MB in 2026).
	catalogFetchTimeout = 60 * time.Second
	// catalogMaxBytes bounds its size.
	catalogMaxBytes = 64 << 20
)

// catalogRefresh is what a refresh did.
type catalogRefresh struct {
	path, url, asOf string
	models          int
}

// refreshCatalog fetches the data at url and saves it as the catalog file
// of dataDir, dated by the response's Last-Modified (else today, UTC).
func refreshCatalog(ctx context.Context, url, dataDir string) (catalogRefresh, error) {
	if !strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://") {
		return catalogRefresh{}, fmt.Errorf("catalog URL %q: want an http:// or https:// URL (AGENT_CATALOG_URL)", url)
	}
	ctx, cancel := context.WithTimeout(ctx, catalogFetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return catalogRefresh{}, fmt.Errorf("fetch the catalog from %s: %w", url, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return catalogRefresh{}, fmt.Errorf("fetch the catalog from %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return catalogRefresh{}, fmt.Errorf("fetch the catalog from %s: %s", url, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, catalogMaxBytes+1))
	if err != nil {
		return catalogRefresh{}, fmt.Errorf("fetch the catalog from %s: %w", url, err)
	}
	if len(data) > catalogMaxBytes {
		return catalogRefresh{}, fmt.Errorf("fetch the catalog from %s: more than %d MiB; not used", url, catalogMaxBytes>>20)
	}
	rows, err := config.CatalogFromModelsDev(data)
	if err != nil {
		return catalogRefresh{}, fmt.Errorf("catalog from %s: %w; the catalog in force is kept", url, err)
	}
	asOf := time.Now().UTC().Format(time.DateOnly)
	if t, err := http.ParseTime(resp.Header.Get("Last-Modified")); err == nil {
		asOf = t.UTC().Format(time.DateOnly)
	}
	path := filepath.Join(dataDir, config.CatalogFileName)
	if err := config.WriteCatalogFile(path, rows, url, asOf); err != nil {
		return catalogRefresh{}, err
	}
	if w := config.UseCatalogFile(path); w != "" {
		return catalogRefresh{}, fmt.Errorf("%s", w)
	}
	return catalogRefresh{path: path, url: url, asOf: asOf, models: len(rows)}, nil
}

// catalogLine says which catalog is in force and its date.
func catalogLine(c config.CatalogInfo) string {
	if c.Origin == "embedded" {
		return fmt.Sprintf("catalog: embedded, models.dev data of %s (%d models); agent models --refresh fetches the current one", c.AsOf, c.Models)
	}
	return fmt.Sprintf("catalog: %s, from %s as of %s (%d models)", c.Origin, c.URL, c.AsOf, c.Models)
}
