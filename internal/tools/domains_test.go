package tools

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// urlTool is a DomainGated tool that fetches nothing.
type urlTool struct{}

func (urlTool) Name() string                { return "web_fetch" }
func (urlTool) Description() string         { return "fetch" }
func (urlTool) Parameters() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (urlTool) ReadOnly() bool              { return true }
func (urlTool) Run(context.Context, *Env, Call) (Result, error) {
	return Result{Output: "fetched"}, nil
}
func (urlTool) PermissionDomain(input json.RawMessage) string {
	var in struct{ URL string }
	_ = json.Unmarshal(input, &in)
	u, err := url.Parse(in.URL)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

func fetchCall(u string) Call { return mkCall("web_fetch", map[string]string{"url": u}) }

// An "allow for this session" grants the domain asked about, not the
// tool: the next call to the same host is not asked, one to another host
// is.
func TestDomainPermissionSessionGrantIsPerDomain(t *testing.T) {
	reg := NewRegistry().With(urlTool{})
	asker := &fakeAsker{reply: AllowSession}
	perms := NewPermissions(nil, asker, false)
	env := &Env{Dir: t.TempDir()}
	ctx := context.Background()
	for i, u := range []string{"https://docs.python.org/3/", "https://DOCS.python.org/3/library/", "https://example.com/"} {
		ok, denial, err := reg.Check(ctx, env, perms, fetchCall(u))
		if err != nil || !ok {
			t.Fatalf("call %d (%s): ok=%v denial=%q err=%v", i, u, ok, denial, err)
		}
	}
	if asker.count() != 2 {
		t.Fatalf("asked %d times, want 2 (docs.python.org once, example.com once)", asker.count())
	}
	if got := asker.asked[0]; got.Domain != "docs.python.org" || !strings.Contains(got.Title, "https://docs.python.org/3/") {
		t.Errorf("first request = %+v, want the domain and the URL in the title", got)
	}
}

// permissions.web_fetch's domain patterns: exact hosts beat wildcards,
// "*.x" matches hosts under x, the tool's own mode is the fallback, and
// a denied domain stays denied under --yes.
func TestDomainPermissionPatterns(t *testing.T) {
	modes := map[string]Mode{
		"web_fetch:docs.python.org": ModeAllow,
		"web_fetch:*.internal":      ModeDeny,
		"web_fetch:ok.internal":     ModeAllow,
		"web_fetch:*.example.com":   ModeAllow,
	}
	reg := NewRegistry().With(urlTool{})
	env := &Env{Dir: t.TempDir()}
	for _, tc := range []struct {
		url  string
		yes  bool
		want bool
	}{
		{"https://docs.python.org/3/", false, true},
		{"https://db.internal/", false, false},
		{"https://db.internal/", true, false}, // --yes does not undo a deny
		{"https://ok.internal/", false, true},
		{"https://a.example.com/", false, true},
		{"https://example.com/", false, false}, // headless, no pattern: asks, denied
		{"https://example.com/", true, true},
	} {
		perms := NewPermissions(modes, nil, tc.yes)
		ok, denial, err := reg.Check(context.Background(), env, perms, fetchCall(tc.url))
		if err != nil || ok != tc.want {
			t.Errorf("%s yes=%v: ok=%v (%q) err=%v, want %v", tc.url, tc.yes, ok, denial, err, tc.want)
		}
		if !ok && !strings.Contains(denial, "web_fetch") {
			t.Errorf("%s: denial %q does not name the tool", tc.url, denial)
		}
	}
	// The plain form still works: the tool's mode covers every domain.
	perms := NewPermissions(map[string]Mode{"web_fetch": ModeAllow}, nil, false)
	if ok, denial, _ := reg.Check(context.Background(), env, perms, fetchCall("https://any.where/")); !ok {
		t.Errorf("permissions.web_fetch = allow: denied %q", denial)
	}
}

// memDomains is a DomainMemory in memory.
type memDomains map[string]bool

func (m memDomains) Remembered(tool, host string) bool { return m[tool+" "+host] }
func (m memDomains) Remember(tool, host string) error {
	m[tool+" "+host] = true
	return nil
}

// "Always" remembers the domain: a later session (new Permissions, here
// headless) fetches from it unasked; other domains still ask; a domain
// the configuration denies stays denied.
func TestDomainPermissionAlwaysIsRemembered(t *testing.T) {
	reg := NewRegistry().With(urlTool{})
	env := &Env{Dir: t.TempDir()}
	ctx := context.Background()
	mem := memDomains{}
	asker := &fakeAsker{reply: AllowAlways}
	perms := NewPermissions(nil, asker, false).WithDomainMemory(mem)
	if ok, denial, err := reg.Check(ctx, env, perms, fetchCall("https://go.dev/doc/")); !ok || err != nil {
		t.Fatalf("always: %q %v", denial, err)
	}
	if !mem["web_fetch go.dev"] {
		t.Fatalf("not remembered: %v", mem)
	}
	later := NewPermissions(map[string]Mode{"web_fetch:*.bad.example": ModeDeny}, nil, false).WithDomainMemory(mem)
	if ok, denial, _ := reg.Check(ctx, env, later, fetchCall("https://go.dev/ref/spec")); !ok {
		t.Errorf("a remembered domain asked again: %q", denial)
	}
	if ok, _, _ := reg.Check(ctx, env, later, fetchCall("https://pkg.go.dev/")); ok {
		t.Errorf("another domain was allowed unasked")
	}
	mem["web_fetch x.bad.example"] = true
	if ok, _, _ := reg.Check(ctx, env, later, fetchCall("https://x.bad.example/")); ok {
		t.Errorf("a denied domain was allowed by memory")
	}
}

// A domain question carries the call's id, as every other question does,
// so that a front end (the ACP client) ties it to the call it shows.
func TestDomainPermissionRequestCarriesTheCallID(t *testing.T) {
	reg := NewRegistry().With(urlTool{})
	asker := &fakeAsker{reply: AllowOnce}
	perms := NewPermissions(nil, asker, false)
	call := fetchCall("https://docs.python.org/3/")
	call.ID = "call_7"
	if ok, denial, err := reg.Check(context.Background(), &Env{Dir: t.TempDir()}, perms, call); err != nil || !ok {
		t.Fatalf("ok=%v denial=%q err=%v", ok, denial, err)
	}
	if asker.count() != 1 || asker.asked[0].CallID != "call_7" {
		t.Fatalf("requests = %+v, want one with CallID call_7", asker.asked)
	}
}
