package config

import (
	"path/filepath"
	"testing"
)

// BenchmarkCatalogLookup: a dated id (the prefix rule) and an unknown
// name (every rule tried) in the embedded catalog.
func BenchmarkCatalogLookup(b *testing.B) {
	for i := 0; i < b.N; i++ {
		lookupCatalog("gpt-4.1-2025-04-14")
		lookupCatalog("my-local-model-q4")
	}
}

// BenchmarkCatalogFileLoad: the start-up cost of a refreshed catalog as
// large as the embedded one (read and parse on every Load).
func BenchmarkCatalogFileLoad(b *testing.B) {
	b.Cleanup(func() { activeCatalog.Store(nil) })
	path := filepath.Join(b.TempDir(), CatalogFileName)
	if err := WriteCatalogFile(path, catalogRows[:], "http://127.0.0.1/api.json", "2026-11-26"); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if w := UseCatalogFile(path); w != "" {
			b.Fatal(w)
		}
	}
}
