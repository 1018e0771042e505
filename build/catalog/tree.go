package main

// The models.dev TOML tree in api.json's shape, by the rules of its
// README: a provider model's file is providers/<provider>/models/<id>.toml
// (subfolders for ids with "/"); with base_model = "<path>" it starts from
// models/<path>.toml, its own fields win (tables merged key by key), and
// base_model_omit's dot paths are removed after.

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
)

// apiJSONFromTree reads the given providers of the checkout at root.
func apiJSONFromTree(root string, providers []string) ([]byte, error) {
	if _, err := os.Stat(filepath.Join(root, "providers")); err != nil {
		return nil, fmt.Errorf("%s is not a models.dev checkout: %w", root, err)
	}
	out := map[string]any{}
	for _, pid := range providers {
		dir := filepath.Join(root, "providers", pid, "models")
		if _, err := os.Stat(dir); err != nil {
			continue
		}
		models := map[string]any{}
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".toml") {
				return err
			}
			rel, _ := filepath.Rel(dir, path)
			id := strings.TrimSuffix(filepath.ToSlash(rel), ".toml")
			m, err := providerModel(root, path)
			if err != nil {
				return err
			}
			m["id"] = id
			models[id] = m
			return nil
		})
		if err != nil {
			return nil, err
		}
		out[pid] = map[string]any{"id": pid, "models": models}
	}
	return json.Marshal(out)
}

// providerModel is one provider model's fields after base_model.
func providerModel(root, path string) (map[string]any, error) {
	m, err := readTOML(path)
	if err != nil {
		return nil, err
	}
	base, ok := m["base_model"].(string)
	if !ok {
		return m, nil
	}
	b, err := readTOML(filepath.Join(root, "models", filepath.FromSlash(base)+".toml"))
	if err != nil {
		return nil, fmt.Errorf("%s: base_model %s: %w", path, base, err)
	}
	omit, _ := m["base_model_omit"].([]any)
	delete(m, "base_model")
	delete(m, "base_model_omit")
	merged := mergeTables(b, m)
	for _, o := range omit {
		if s, ok := o.(string); ok {
			removePath(merged, strings.Split(s, "."))
		}
	}
	return merged, nil
}

func readTOML(path string) (map[string]any, error) {
	var m map[string]any
	if _, err := toml.DecodeFile(path, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// mergeTables is base with over's fields over it, tables merged key by key.
func mergeTables(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		bt, ok1 := out[k].(map[string]any)
		ot, ok2 := v.(map[string]any)
		if ok1 && ok2 {
			out[k] = mergeTables(bt, ot)
			continue
		}
		out[k] = v
	}
	return out
}

func removePath(m map[string]any, path []string) {
	if len(path) == 1 {
		delete(m, path[0])
		return
	}
	if sub, ok := m[path[0]].(map[string]any); ok {
		removePath(sub, path[1:])
	}
}
