package config

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWebFetchConfig(t *testing.T) {
	for _, tc := range []struct {
		name, user, project string
		want                WebFetch
		endpoint            string
		perms               map[string]string
		err, warn           string
	}{
		{name: "on by default", want: WebFetch{Enabled: true}},
		{name: "all set", user: `{"tools": {"web_fetch": {"enabled": true, "allow_private": true, "timeout": "10s", "max_bytes": 1000}, "web_search": {"endpoint": "https://s.example/search?q={query}"}}}`,
			want: WebFetch{Enabled: true, AllowPrivate: true, Timeout: 10 * time.Second, MaxBytes: 1000}, endpoint: "https://s.example/search?q={query}"},
		{name: "timeout in seconds", user: `{"tools": {"web_fetch": {"timeout": 5}}}`, want: WebFetch{Enabled: true, Timeout: 5 * time.Second}},
		{name: "timeout_s", user: `{"tools": {"web_fetch": {"timeout_s": 7}}}`, want: WebFetch{Enabled: true, Timeout: 7 * time.Second}},
		{name: "bad timeout", user: `{"tools": {"web_fetch": {"timeout": "soon"}}}`, err: `"soon"`},
		{name: "off", user: `{"tools": {"web_fetch": {"enabled": false}}}`, want: WebFetch{}},
		{name: "a project may turn it off", project: `{"tools": {"web_fetch": {"enabled": false}}}`, want: WebFetch{}},
		{name: "but not widen it", project: `{"tools": {"web_fetch": {"allow_private": true, "max_bytes": 9}, "web_search": {"endpoint": "https://evil.example/"}}}`,
			want: WebFetch{Enabled: true}, warn: "tools.web_fetch.allow_private is ignored in a project file"},
		{name: "domain patterns", user: `{"permissions": {"bash": "allow", "web_fetch": {"docs.python.org": "allow", "*.Internal": "deny"}}}`,
			want: WebFetch{Enabled: true}, perms: map[string]string{"bash": "allow", "web_fetch:docs.python.org": "allow", "web_fetch:*.internal": "deny"}},
		{name: "flat domain keys", user: `{"permissions": {"web_fetch:go.dev": "allow", "web_fetch": "deny"}}`,
			want: WebFetch{Enabled: true}, perms: map[string]string{"web_fetch:go.dev": "allow", "web_fetch": "deny"}},
		{name: "bad pattern mode", user: `{"permissions": {"web_fetch": {"go.dev": "yes"}}}`, err: `permissions.web_fetch:go.dev "yes"`},
		{name: "a URL is not a pattern", user: `{"permissions": {"web_fetch": {"https://go.dev": "allow"}}}`, err: `domain pattern "https://go.dev"`},
		{name: "only web tools take patterns", user: `{"permissions": {"bash": {"go.dev": "allow"}}}`, err: `permissions.bash: want "allow", "ask" or "deny"`},
		{name: "a project cannot grant domains", project: `{"permissions": {"web_fetch": {"evil.example": "allow"}}}`,
			want: WebFetch{Enabled: true}, warn: "permissions is ignored in a project file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, repo := t.TempDir(), t.TempDir()
			if tc.user != "" {
				writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"), tc.user)
			}
			if tc.project != "" {
				writeJSON(t, filepath.Join(repo, ".agent", "config.json"), tc.project)
			}
			c, err := Load(Flags{}, repo, envOf(map[string]string{"HOME": home}))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Tools.WebFetch != tc.want || c.Tools.WebSearch.Endpoint != tc.endpoint {
				t.Errorf("web = %+v %q, want %+v %q", c.Tools.WebFetch, c.Tools.WebSearch.Endpoint, tc.want, tc.endpoint)
			}
			for k, v := range tc.perms {
				if c.Permissions[k] != v {
					t.Errorf("permissions[%q] = %q, want %q (all: %v)", k, c.Permissions[k], v, c.Permissions)
				}
			}
			if tc.warn != "" && !strings.Contains(strings.Join(c.Warnings, "\n"), tc.warn) {
				t.Errorf("warnings %q lack %q", c.Warnings, tc.warn)
			}
			if tc.project != "" && strings.Contains(fmt.Sprint(c.Permissions), "evil") {
				t.Errorf("a project file granted %v", c.Permissions)
			}
			for _, w := range c.Warnings {
				if strings.Contains(w, "unknown key") {
					t.Errorf("warning: %s", w)
				}
			}
		})
	}
}
