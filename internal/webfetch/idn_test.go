package webfetch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/tools"
)

// The domain asked about and matched against permissions.web_fetch is
// the one the request reaches: net/http maps a host through IDNA before
// it resolves it (fullwidth letters and upper case fold to ASCII), so
// the permission must see the same ASCII form. A look-alike Unicode host
// is shown in punycode, never as the letters that imitate another name.
func TestPermissionDomainIsTheHostTheRequestReaches(t *testing.T) {
	tool := Tools(Config{Enabled: true})[0].(*fetchTool)
	for _, tc := range []struct{ url, want string }{
		{"https://ｅｖｉｌ.com/", "evil.com"},                  // fullwidth: dials evil.com
		{"https://EVIL.com./x", "evil.com"},                // case and the root dot
		{"https://evil.com../x", ""},                       // an empty label: not a host
		{"https://раураl.com/login", "xn--l-7sba6dbr.com"}, // Cyrillic look-alike of paypal.com
		{"https://bücher.de/", "xn--bcher-kva.de"},
		{"https://xn--bcher-kva.de/", "xn--bcher-kva.de"},
		{"http://127.1/", "127.1"},
		{"http://[::1]:8080/", "::1"},
	} {
		got := tool.PermissionDomain(json.RawMessage(fmt.Sprintf(`{"url":%q}`, tc.url)))
		if got != tc.want {
			t.Errorf("PermissionDomain(%s) = %q, want %q", tc.url, got, tc.want)
		}
	}
}

// A deny in permissions.web_fetch holds against every spelling of the
// denied host, and a pattern written in Unicode matches its punycode.
func TestDomainDenyHoldsForEverySpellingOfTheHost(t *testing.T) {
	reg := tools.NewRegistry().With(Tools(Config{Enabled: true})...)
	env := &tools.Env{Dir: t.TempDir()}
	perms := tools.NewPermissions(map[string]tools.Mode{
		"web_fetch:evil.com":    tools.ModeDeny,
		"web_fetch:*.bücher.de": tools.ModeDeny,
		"web_fetch:*":           tools.ModeAllow,
	}, nil, true)
	for _, u := range []string{"https://ｅｖｉｌ.com/", "https://EVIL.COM./", "https://shop.xn--bcher-kva.de/", "https://SHOP.bücher.de/"} {
		in, _ := json.Marshal(map[string]string{"url": u})
		ok, denial, err := reg.Check(context.Background(), env, perms, tools.Call{ID: "c", Name: "web_fetch", Input: in})
		if err != nil || ok {
			t.Errorf("%s: allowed (ok=%v, denial %q, err %v); the configuration denies it", u, ok, denial, err)
		} else if !strings.Contains(denial, "denied by the configuration") {
			t.Errorf("%s: denial %q", u, denial)
		}
	}
}
