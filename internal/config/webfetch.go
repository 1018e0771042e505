package config

// The web tools' settings (issue 35): tools.web_fetch {enabled,
// allow_private, timeout, max_bytes} and tools.web_search {endpoint}, and
// permissions.web_fetch's domain patterns. They are the user's: a project
// file may only turn web_fetch off (a cloned repository must not be able
// to reach the user's private network or name a search endpoint that
// receives their queries).

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// WebFetch is tools.web_fetch.
type WebFetch struct {
	Enabled      bool          `json:"enabled"`       // default true
	AllowPrivate bool          `json:"allow_private"` // loopback, private, link-local... addresses may be fetched
	Timeout      time.Duration `json:"timeout"`       // the whole exchange (0: the tool's default, 30 s)
	MaxBytes     int64         `json:"max_bytes"`     // the most of a body read (0: the tool's default, 5 MiB)
}

// WebSearch is tools.web_search: web_search is offered only when
// Endpoint is set (no service or key is built in).
type WebSearch struct {
	Endpoint string `json:"endpoint"`
}

// webFetchFile is tools.web_fetch in a file.
type webFetchFile struct {
	Enabled      *bool         `json:"enabled"`
	AllowPrivate *bool         `json:"allow_private"`
	Timeout      *durationFile `json:"timeout"`
	TimeoutS     *float64      `json:"timeout_s"`
	MaxBytes     *int64        `json:"max_bytes"`
}

// webSearchFile is tools.web_search in a file.
type webSearchFile struct {
	Endpoint *string `json:"endpoint"`
}

// durationFile is a duration written as a string ("30s", "1m") or a
// number of seconds.
type durationFile time.Duration

func (d *durationFile) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			if secs, err2 := strconv.ParseFloat(s, 64); err2 == nil {
				v, err = time.Duration(secs*float64(time.Second)), nil
			}
		}
		if err != nil {
			return fmt.Errorf("duration %q: want e.g. \"30s\" or a number of seconds", s)
		}
		*d = durationFile(v)
		return nil
	}
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil {
		return fmt.Errorf("duration %s: want e.g. \"30s\" or a number of seconds", b)
	}
	*d = durationFile(time.Duration(secs * float64(time.Second)))
	return nil
}

// applyWeb merges tools.web_fetch and tools.web_search of a file.
func (c *Config) applyWeb(fetch *webFetchFile, search *webSearchFile, trusted bool) {
	if fetch != nil {
		if v := fetch.Enabled; v != nil && (trusted || !*v) { // a project may only turn it off
			c.Tools.WebFetch.Enabled = *v
		}
		if trusted {
			setBool(&c.Tools.WebFetch.AllowPrivate, fetch.AllowPrivate)
			if v := fetch.TimeoutS; v != nil && *v > 0 {
				c.Tools.WebFetch.Timeout = time.Duration(*v * float64(time.Second))
			}
			if v := fetch.Timeout; v != nil && *v > 0 {
				c.Tools.WebFetch.Timeout = time.Duration(*v)
			}
			if v := fetch.MaxBytes; v != nil && *v > 0 {
				c.Tools.WebFetch.MaxBytes = *v
			}
		}
	}
	if search != nil && search.Endpoint != nil && trusted {
		c.Tools.WebSearch.Endpoint = strings.TrimSpace(*search.Endpoint)
	}
}

// webProjectIgnored names, sorted, the web settings a project file set that only
// a user file may.
func webProjectIgnored(fetch *webFetchFile, search *webSearchFile) []string {
	var out []string
	if f := fetch; f != nil {
		for name, set := range map[string]bool{
			"tools.web_fetch.enabled": f.Enabled != nil && *f.Enabled, "tools.web_fetch.allow_private": f.AllowPrivate != nil,
			"tools.web_fetch.timeout": f.Timeout != nil || f.TimeoutS != nil, "tools.web_fetch.max_bytes": f.MaxBytes != nil,
		} {
			if set {
				out = append(out, name)
			}
		}
	}
	if search != nil {
		out = append(out, "tools.web_search")
	}
	slices.Sort(out)
	return out
}

// permissionsFile is the permissions object of a file: tool → mode, and
// for web_fetch (and web_search) also {domain pattern → mode}, which
// becomes the keys "web_fetch:<pattern>" (the same keys may be written
// flat). The old form, a mode string per tool, stays valid.
type permissionsFile map[string]string

// domainPermissionTools take an object of domain patterns.
var domainPermissionTools = map[string]bool{"web_fetch": true, "web_search": true}

func (p *permissionsFile) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	out := make(permissionsFile, len(raw))
	for tool, v := range raw {
		var mode string
		if json.Unmarshal(v, &mode) == nil {
			out[tool] = mode
			continue
		}
		var patterns map[string]string
		if !domainPermissionTools[tool] || json.Unmarshal(v, &patterns) != nil {
			if domainPermissionTools[tool] {
				return fmt.Errorf("permissions.%s: want a mode (\"allow\", \"ask\", \"deny\") or an object of domain patterns to modes", tool)
			}
			return fmt.Errorf("permissions.%s: want \"allow\", \"ask\" or \"deny\"", tool)
		}
		for pattern, mode := range patterns {
			pattern = strings.ToLower(strings.TrimSpace(pattern))
			if pattern == "" || strings.ContainsAny(pattern, "/: ") || strings.Contains(pattern[1:], "*") || pattern[0] == '*' && pattern != "*" && !strings.HasPrefix(pattern, "*.") {
				return fmt.Errorf("permissions.%s: domain pattern %q: want a host (docs.python.org), *.suffix or *", tool, pattern)
			}
			out[tool+":"+pattern] = mode
		}
	}
	*p = out
	return nil
}
