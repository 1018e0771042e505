package webfetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/tools"
)

// local is the configuration of tests whose servers are on 127.0.0.1.
var local = Config{Enabled: true, AllowPrivate: true}

// fetch runs web_fetch through a registry, as the loop does: the result
// is sanitised and truncated like every tool's.
func fetch(t *testing.T, cfg Config, input any) tools.Result {
	t.Helper()
	return runTool(t, Tools(cfg), "web_fetch", input)
}

func runTool(t *testing.T, ts []tools.Tool, name string, input any) tools.Result {
	t.Helper()
	b, _ := json.Marshal(input)
	reg := tools.NewRegistry().With(ts...)
	env := &tools.Env{Dir: t.TempDir(), OutputDir: t.TempDir()}
	return reg.Run(context.Background(), env, tools.Call{ID: "c1", Name: name, Input: b})
}

func serve(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func TestFetchHTMLBecomesMarkdownWrappedAsUntrusted(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>T</title><script>var secret = "script body";</script><style>p{}</style></head>
<body><h1>Install guide</h1><p>Run <code>go build</code> then read <a href="/docs/next.html">the next page</a>.</p>
<ul><li>one</li><li>two</li></ul><p>colour: `+"\x1b[31mred\x1b[0m \x1b]0;pwned\x07"+`done</p></body></html>`)
	})
	res := fetch(t, local, map[string]any{"url": srv.URL + "/docs/index.html"})
	if res.IsError {
		t.Fatalf("error result: %s", res.Output)
	}
	first, rest, _ := strings.Cut(res.Output, "\n")
	if want := Untrusted(srv.URL + "/docs/index.html"); first != want {
		t.Errorf("first line = %q, want %q", first, want)
	}
	for _, want := range []string{"# Install guide", "`go build`", "[the next page](" + srv.URL + "/docs/next.html)", "- one", "done"} {
		if !strings.Contains(rest, want) {
			t.Errorf("markdown lacks %q:\n%s", want, rest)
		}
	}
	for _, bad := range []string{"script body", "\x1b", "\x07", "<h1>"} {
		if strings.Contains(res.Output, bad) {
			t.Errorf("output holds %q:\n%q", bad, res.Output)
		}
	}
	if res.Metadata["content_type"] != "text/html" {
		t.Errorf("metadata = %v", res.Metadata)
	}
}

func TestFetchPassesTextThroughAndDescribesOtherTypes(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/a.json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"name": "<b>not html</b>"}`)
		case "/a.txt":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "# not a heading to convert\n<p>raw</p>\n")
		case "/latin1":
			w.Header().Set("Content-Type", "text/plain; charset=ISO-8859-1")
			w.Write([]byte("caf\xe9"))
		case "/cp1252":
			w.Header().Set("Content-Type", "text/plain; charset=windows-1252")
			w.Write([]byte("\x93caf\xe9\x94 \x80 5"))
		case "/a.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00binary"))
		}
	})
	for _, tc := range []struct{ path, want string }{
		{"/a.json", `{"name": "<b>not html</b>"}`},
		{"/a.txt", "# not a heading to convert\n<p>raw</p>"},
		{"/latin1", "café"},
		{"/cp1252", "“café” € 5"}, // 0x80-0x9F are windows-1252's, not C1 controls
		{"/a.png", "[image/png content, 16 bytes: not shown"},
	} {
		res := fetch(t, local, map[string]any{"url": srv.URL + tc.path})
		if res.IsError || !strings.Contains(res.Output, tc.want) || !strings.HasPrefix(res.Output, Untrusted(srv.URL+tc.path)) {
			t.Errorf("%s: got (error=%v)\n%s\nwant it to hold %q after the untrusted line", tc.path, res.IsError, res.Output, tc.want)
		}
	}
}

// redirector serves /r/N as a redirect to /r/N-1 (same host) and /r/0 as
// the page.
func redirector(t *testing.T, hits *atomic.Int32) *httptest.Server {
	return serve(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		var n int
		if _, err := fmt.Sscanf(r.URL.Path, "/r/%d", &n); err == nil && n > 0 {
			http.Redirect(w, r, fmt.Sprintf("/r/%d", n-1), http.StatusFound)
			return
		}
		fmt.Fprint(w, "landed")
	})
}

func TestFetchRedirectsAreBounded(t *testing.T) {
	var hits atomic.Int32
	srv := redirector(t, &hits)
	res := fetch(t, local, map[string]any{"url": srv.URL + "/r/3"})
	if res.IsError || !strings.HasPrefix(res.Output, Untrusted(srv.URL+"/r/0")) || !strings.Contains(res.Output, "landed") {
		t.Fatalf("3 redirects: %s", res.Output)
	}
	hits.Store(0)
	res = fetch(t, local, map[string]any{"url": srv.URL + "/r/50"})
	if !res.IsError || !strings.Contains(res.Output, "more than 5 redirects") {
		t.Errorf("50 redirects: %s", res.Output)
	}
	if n := hits.Load(); n != maxRedirects+1 {
		t.Errorf("the server was asked %d times, want %d", n, maxRedirects+1)
	}
}

// A redirect to another host is reported, not followed: that host's
// domain is approved on its own.
func TestFetchRedirectToAnotherHostIsNotFollowed(t *testing.T) {
	var otherHits atomic.Int32
	other := serve(t, func(w http.ResponseWriter, r *http.Request) { otherHits.Add(1) })
	_, port, _ := net.SplitHostPort(other.Listener.Addr().String())
	target := "http://localhost:" + port + "/elsewhere"
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, target, http.StatusMovedPermanently) })
	res := fetch(t, local, map[string]any{"url": srv.URL + "/"})
	if res.IsError || !strings.Contains(res.Output, target) || !strings.Contains(res.Output, "not followed") {
		t.Errorf("result: %s", res.Output)
	}
	if otherHits.Load() != 0 {
		t.Errorf("the other host was fetched")
	}
}

// Without allow_private, loopback is refused in every spelling, a name
// included: the check is on the address the name resolves to, when
// dialling. Nothing reaches the server.
func TestFetchRefusesPrivateAddressesWhenNotAllowed(t *testing.T) {
	var hits atomic.Int32
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { hits.Add(1) })
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	for _, u := range []string{
		srv.URL + "/",
		"http://localhost:" + port + "/",
		"http://[::ffff:127.0.0.1]:" + port + "/",
	} {
		res := fetch(t, Config{Enabled: true}, map[string]any{"url": u})
		if !res.IsError || !strings.Contains(res.Output, "refused") || !strings.Contains(res.Output, "allow_private") {
			t.Errorf("%s: %s", u, res.Output)
		}
	}
	if hits.Load() != 0 {
		t.Errorf("the server was reached %d times", hits.Load())
	}
}

// Each hop is dialled through the guard: a public page (here: the one
// port the test's guard lets through) that redirects to a private
// address gets a refusal, and the private server is never reached.
func TestFetchRedirectToPrivateAddressRefusedAtDial(t *testing.T) {
	var privateHits atomic.Int32
	private := serve(t, func(w http.ResponseWriter, r *http.Request) { privateHits.Add(1) })
	public := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, private.URL+"/admin", http.StatusFound)
	})
	publicAddr := netip.MustParseAddrPort(public.Listener.Addr().String())
	guard := func(ap netip.AddrPort) string {
		if ap == publicAddr {
			return ""
		}
		return publicOnly(ap)
	}
	res := runTool(t, toolsWith(Config{Enabled: true}, guard), "web_fetch", map[string]any{"url": public.URL + "/"})
	if !res.IsError || !strings.Contains(res.Output, "refused") || !strings.Contains(res.Output, "loopback") {
		t.Errorf("result: %s", res.Output)
	}
	if privateHits.Load() != 0 {
		t.Errorf("the private server was reached")
	}
}

// A 10 GB response is cut at the limit, with a note, and the read stops
// there.
func TestFetchSizeIsBounded(t *testing.T) {
	var sent atomic.Int64
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Length", fmt.Sprint(int64(10)<<30))
		line := []byte(strings.Repeat("x", 1023) + "\n")
		for i := 0; i < 10<<20; i++ {
			n, err := w.Write(line)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	})
	res := fetch(t, local, map[string]any{"url": srv.URL, "max_bytes": 100000})
	if res.IsError || !strings.Contains(res.Output, "the response was cut at 100000 bytes of 10737418240") {
		t.Fatalf("result: %.300s", res.Output)
	}
	if got := res.Metadata["bytes"]; got != 100000 {
		t.Errorf("bytes read = %v, want 100000", got)
	}
	if s := sent.Load(); s > 64<<20 {
		t.Errorf("the server could write %d bytes: the read did not stop", s)
	}
}

// A server that sends a byte now and then (slowloris) is cut at the
// timeout, headers or body.
func TestFetchTimeIsBounded(t *testing.T) {
	stop := make(chan struct{})
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/body" {
			w.Header().Set("Content-Type", "text/plain")
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-tick.C:
					if _, err := w.Write([]byte("x")); err != nil {
						return
					}
					w.(http.Flusher).Flush()
				case <-stop:
					return
				case <-r.Context().Done():
					return
				}
			}
		}
		select { // never answers
		case <-stop:
		case <-r.Context().Done():
		}
	})
	defer close(stop)
	cfg := local
	cfg.Timeout = 300 * time.Millisecond
	for _, path := range []string{"/body", "/headers"} {
		start := time.Now()
		res := fetch(t, cfg, map[string]any{"url": srv.URL + path})
		took := time.Since(start)
		if !res.IsError || !strings.Contains(res.Output, "timed out after 300ms") {
			t.Errorf("%s: %s", path, res.Output)
		}
		if took > 3*time.Second {
			t.Errorf("%s: took %v", path, took)
		}
	}
}

func TestFetchRefusesCredentialsAndOtherSchemes(t *testing.T) {
	tool := Tools(local)[0].(tools.DomainGated)
	for _, tc := range []struct{ url, want string }{
		{"https://user:secret@example.com/x", "credentials"},
		{"https://user@example.com/x", "credentials"},
		{"file:///etc/passwd", `scheme "file" is not supported`},
		{"ftp://example.com/", `scheme "ftp" is not supported`},
		{"javascript:alert(1)", `scheme "javascript" is not supported`},
		{"example.com/docs", "no scheme"},
		{"http:///nohost", "no host"},
		{"https://example.com/\x1b]0;pwned\x07x", "not a URL"},
	} {
		res := fetch(t, local, map[string]any{"url": tc.url})
		if !res.IsError || !strings.Contains(res.Output, tc.want) || !strings.Contains(res.Output, "Nothing was fetched") {
			t.Errorf("%s: %s", tc.url, res.Output)
		}
		if strings.ContainsAny(res.Output+res.Title, "\x1b\x07") {
			t.Errorf("%s: escapes in the result: %q %q", tc.url, res.Title, res.Output)
		}
		if strings.Contains(res.Output, "secret") {
			t.Errorf("%s: the password is in the result: %s", tc.url, res.Output)
		}
		if d := tool.PermissionDomain(json.RawMessage(fmt.Sprintf(`{"url":%q}`, tc.url))); d != "" {
			t.Errorf("%s: asks about domain %q; a URL refused anyway asks nothing", tc.url, d)
		}
	}
}

// Invalid HTML (unclosed tags, a stray table, 20000 nested elements)
// still gives a bounded Markdown result.
func TestFetchInvalidHTMLGivesABoundedResult(t *testing.T) {
	page := "<html><body><div><p><b>unclosed <i>tags <table><tr><td>cell</p></b></div><<>>&&#xZZ;" +
		strings.Repeat("<div>", 20000) + "deep" + "\x00\xff\xfe"
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, page)
	})
	res := fetch(t, local, map[string]any{"url": srv.URL})
	if res.IsError || !strings.Contains(res.Output, "cell") || !strings.Contains(res.Output, "deep") {
		t.Fatalf("result: %.500s", res.Output)
	}
	if len(res.Output) > 60<<10 {
		t.Errorf("result is %d bytes, past the shared cap", len(res.Output))
	}
}

func TestRefusal(t *testing.T) {
	for addr, refused := range map[string]bool{
		"127.0.0.1": true, "127.1.2.3": true, "10.1.2.3": true, "172.16.0.1": true, "192.168.1.1": true,
		"169.254.169.254": true, "100.64.0.1": true, "0.0.0.0": true, "224.0.0.1": true, "255.255.255.255": true,
		"::1": true, "::": true, "fe80::1": true, "fd00::1": true, "::ffff:127.0.0.1": true, "::ffff:10.0.0.1": true,
		"64:ff9b::7f00:1": true, "2002:7f00:1::": true,
		"93.184.216.34": false, "8.8.8.8": false, "2606:4700:4700::1111": false, "::ffff:8.8.8.8": false,
	} {
		if got := refusal(netip.MustParseAddr(addr)) != ""; got != refused {
			t.Errorf("refusal(%s) = %v, want %v", addr, got, refused)
		}
	}
}

func TestToolsOffConfig(t *testing.T) {
	if got := Tools(Config{}); len(got) != 0 {
		t.Errorf("disabled: %d tools", len(got))
	}
	names := func(ts []tools.Tool) (n []string) {
		for _, t := range ts {
			n = append(n, t.Name())
		}
		return n
	}
	if got := names(Tools(Config{Enabled: true})); fmt.Sprint(got) != "[web_fetch]" {
		t.Errorf("no endpoint: %v", got)
	}
	if got := names(Tools(Config{Enabled: true, SearchEndpoint: "https://s.example/search"})); fmt.Sprint(got) != "[web_fetch web_search]" {
		t.Errorf("with an endpoint: %v", got)
	}
}

func TestSearchQueriesTheEndpoint(t *testing.T) {
	var got atomic.Value
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.URL.RawQuery)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"results":[{"title":"Go","url":"https://go.dev"}]}`)
	})
	cfg := local
	cfg.SearchEndpoint = srv.URL + "/search?format=json"
	res := runTool(t, Tools(cfg), "web_search", map[string]any{"query": "go & generics"})
	if res.IsError || !strings.Contains(res.Output, `"url":"https://go.dev"`) || !strings.HasPrefix(res.Output, "The following was fetched from") {
		t.Fatalf("result: %s", res.Output)
	}
	if q, _ := got.Load().(string); q != "format=json&q=go+%26+generics" {
		t.Errorf("query sent = %q", q)
	}
}

// A URL or query carrying the API key (as is, or percent-encoded) is
// refused before anything is sent.
func TestFetchRefusesURLsHoldingTheKey(t *testing.T) {
	var hits atomic.Int32
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { hits.Add(1) })
	const key = "sk-test-secret-0123456789abcdef"
	cfg := local
	cfg.SearchEndpoint = srv.URL + "/search"
	reg := tools.NewRegistry().With(Tools(cfg)...)
	env := &tools.Env{Dir: t.TempDir(), Secrets: []string{key}}
	for _, c := range []struct{ name, input string }{
		{"web_fetch", `{"url":"` + srv.URL + `/?k=` + key + `"}`},
		{"web_fetch", `{"url":"` + srv.URL + `/?k=sk%2Dtest%2Dsecret%2D0123456789abcdef"}`},
		{"web_search", `{"query":"` + key + `"}`},
	} {
		res := reg.Run(context.Background(), env, tools.Call{ID: "c", Name: c.name, Input: json.RawMessage(c.input)})
		if !res.IsError || !strings.Contains(res.Output, "secrets") || strings.Contains(res.Output+res.Title, key) {
			t.Errorf("%s %s: %s / %s", c.name, c.input, res.Title, res.Output)
		}
	}
	if hits.Load() != 0 {
		t.Errorf("the server got %d requests", hits.Load())
	}
}

// A compressed body is bounded after decompression: a small gzip that
// inflates to 4 MB is cut at the limit like any other.
func TestFetchGzipBombIsBounded(t *testing.T) {
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	chunk := make([]byte, 1<<20)
	for range 4 {
		zw.Write(chunk)
	}
	zw.Close()
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(zipped.Bytes())
	})
	res := fetch(t, local, map[string]any{"url": srv.URL, "max_bytes": 4096})
	if res.IsError || res.Metadata["bytes"] != 4096 || !strings.Contains(res.Output, "cut at 4096 bytes") {
		t.Errorf("result (%v): %.300q", res.Metadata, res.Output)
	}
}
