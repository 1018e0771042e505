package provider

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/provider/providertest"
)

const preconnectSSE = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n" +
	"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"

// connServer is an httptest server answering chat requests with a short
// stream, counting the connections it accepts and what it saw.
type connServer struct {
	srv    *httptest.Server
	mu     sync.Mutex
	conns  int
	closed chan struct{} // receives when a connection closes
	protos []int
	auth   []string
}

func newConnServer(t testing.TB, kind string) *connServer {
	cs := &connServer{closed: make(chan struct{}, 16)}
	cs.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		cs.mu.Lock()
		cs.protos = append(cs.protos, r.ProtoMajor)
		cs.auth = append(cs.auth, r.Header.Get("Authorization"))
		cs.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, preconnectSSE)
	}))
	cs.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		cs.mu.Lock()
		defer cs.mu.Unlock()
		switch s {
		case http.StateNew:
			cs.conns++
		case http.StateClosed:
			cs.closed <- struct{}{}
		}
	}
	switch kind {
	case "http":
		cs.srv.Start()
	case "https":
		cs.srv.StartTLS()
	case "h2":
		cs.srv.EnableHTTP2 = true
		cs.srv.StartTLS()
	}
	t.Cleanup(cs.srv.Close)
	return cs
}

func (cs *connServer) counts() (conns int, protos []int) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.conns, append([]int(nil), cs.protos...)
}

// preconnected returns a provider for base that trusts srv's certificate
// and a channel receiving each background dial's error.
func preconnected(t testing.TB, base string, srv *httptest.Server) (*openAIProvider, <-chan error) {
	t.Helper()
	p := NewOpenAI(Config{BaseURL: base, APIKey: "sk-secret"}).(*openAIProvider)
	if p.pre == nil {
		t.Fatalf("the provider for %s does not preconnect", base)
	}
	if p.pre.tls != nil && srv != nil {
		p.pre.tls.RootCAs = srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	}
	parked := make(chan error, 16)
	p.pre.parked = func(err error) { parked <- err }
	t.Cleanup(p.client.CloseIdleConnections)
	return p, parked
}

// drainText reads s to its end.
func drainText(t testing.TB, s Stream) string {
	t.Helper()
	defer s.Close()
	var text strings.Builder
	for {
		ev, err := s.Recv()
		if errors.Is(err, io.EOF) {
			return text.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		text.WriteString(ev.Text)
	}
}

// TestPreconnectRequestUsesTheParkedConnection: after Preconnect has
// parked a connection, the request goes out on it (the server accepts one
// connection in all), over HTTP/2 for an h2 server, and nothing was sent
// on it before the request.
func TestPreconnectRequestUsesTheParkedConnection(t *testing.T) {
	for _, tc := range []struct {
		kind  string
		proto int
	}{{"http", 1}, {"https", 1}, {"h2", 2}} {
		t.Run(tc.kind, func(t *testing.T) {
			cs := newConnServer(t, tc.kind)
			p, parked := preconnected(t, cs.srv.URL+"/v1", cs.srv)
			p.Preconnect()
			if err := <-parked; err != nil {
				t.Fatalf("preconnect: %v", err)
			}
			s, err := p.Stream(context.Background(), Request{Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			if got := drainText(t, s); got != "hi" {
				t.Fatalf("text %q", got)
			}
			conns, protos := cs.counts()
			if conns != 1 || len(protos) != 1 || protos[0] != tc.proto {
				t.Fatalf("the server accepted %d connection(s) and saw protocols %v; want 1 connection, HTTP/%d", conns, protos, tc.proto)
			}
			if cs.auth[0] != "Bearer sk-secret" {
				t.Fatalf("the request's Authorization %q", cs.auth[0])
			}
		})
	}
}

// TestPreconnectExpiredParkIsNotUsed: a connection parked longer than
// parkedMaxAge is closed and the request dials a new one.
func TestPreconnectExpiredParkIsNotUsed(t *testing.T) {
	cs := newConnServer(t, "https")
	p, parked := preconnected(t, cs.srv.URL+"/v1", cs.srv)
	var mu sync.Mutex
	now := time.Unix(1_000_000, 0)
	p.pre.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	p.Preconnect()
	if err := <-parked; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	now = now.Add(parkedMaxAge)
	mu.Unlock()
	s, err := p.Stream(context.Background(), Request{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	drainText(t, s)
	if conns, _ := cs.counts(); conns != 2 {
		t.Fatalf("the server accepted %d connection(s); want 2 (the expired park unused)", conns)
	}
	p.pre.mu.Lock()
	left := p.pre.conn
	p.pre.mu.Unlock()
	if left != nil {
		t.Fatal("the expired connection is still parked")
	}
}

// TestPreconnectClosedByTheServerIsNotUsed: a parked connection the server
// closed meanwhile is not handed to the request, which dials again and
// succeeds.
func TestPreconnectClosedByTheServerIsNotUsed(t *testing.T) {
	for _, kind := range []string{"http", "https"} {
		t.Run(kind, func(t *testing.T) {
			cs := newConnServer(t, kind)
			p, parked := preconnected(t, cs.srv.URL+"/v1", cs.srv)
			p.Preconnect()
			if err := <-parked; err != nil {
				t.Fatal(err)
			}
			// The server's side goes away (on loopback the FIN is in the
			// client's socket when the server's close returns).
			cs.srv.CloseClientConnections()
			<-cs.closed
			s, err := p.Stream(context.Background(), Request{Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			drainText(t, s)
			if conns, _ := cs.counts(); conns != 2 {
				t.Fatalf("the server accepted %d connection(s); want 2", conns)
			}
		})
	}
}

// TestPreconnectRefusedIsSilent: a server that refuses the connection
// makes Preconnect fail quietly; the request reports its own error.
func TestPreconnectRefusedIsSilent(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	p, parked := preconnected(t, "http://"+addr+"/v1", nil)
	p.Preconnect()
	if err := <-parked; err == nil {
		t.Fatal("the dial to a closed port succeeded")
	}
	_, err = p.Stream(context.Background(), Request{Model: "m"})
	var pe *Error
	if !errors.As(err, &pe) || !strings.Contains(pe.Message, "cannot reach") || !strings.Contains(pe.Message, "refused") {
		t.Fatalf("the request's error %v; want cannot reach … refused", err)
	}
}

// TestConcurrentPreconnectDialsOnce: many Preconnect calls while one dial
// is under way, and more once a connection is parked, dial once.
func TestConcurrentPreconnectDialsOnce(t *testing.T) {
	cs := newConnServer(t, "http")
	p, parked := preconnected(t, cs.srv.URL+"/v1", cs.srv)
	var dials atomic.Int32
	release := make(chan struct{})
	dial := p.pre.dial
	p.pre.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		<-release
		return dial(ctx, network, addr)
	}
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(p.Preconnect)
	}
	wg.Wait()
	close(release)
	if err := <-parked; err != nil {
		t.Fatal(err)
	}
	p.Preconnect()
	if n := dials.Load(); n != 1 {
		t.Fatalf("%d dials; want 1", n)
	}
	if len(parked) != 0 {
		t.Fatal("a second background dial ran")
	}
}

// TestWantsPark: the decision to preconnect.
func TestWantsPark(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	for _, tc := range []struct {
		name            string
		parked, dialing bool
		inflight        int
		lastDone        time.Time
		want            bool
	}{
		{"fresh provider", false, false, 0, time.Time{}, true},
		{"already parked", true, false, 0, time.Time{}, false},
		{"dialling", false, true, 0, time.Time{}, false},
		{"a request in flight", false, false, 1, time.Time{}, false},
		{"a request just finished", false, false, 0, now.Add(-time.Second), false},
		{"the last request long ago", false, false, 0, now.Add(-recentUseWindow), true},
	} {
		if got := wantsPark(now, tc.parked, tc.dialing, tc.inflight, tc.lastDone); got != tc.want {
			t.Errorf("%s: wantsPark = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestShouldPark: only plain http(s) base URLs no proxy applies to are
// preconnected.
func TestShouldPark(t *testing.T) {
	proxy := http.ProxyURL(&url.URL{Scheme: "http", Host: "proxy.example:3128"})
	failing := func(*http.Request) (*url.URL, error) { return nil, errors.New("bad proxy env") }
	for _, tc := range []struct {
		base  string
		proxy func(*http.Request) (*url.URL, error)
		want  bool
	}{
		{"https://api.openai.com/v1", nil, true},
		{"http://127.0.0.1:8080/v1", http.ProxyFromEnvironment, true},
		{"https://api.openai.com/v1", proxy, false},
		{"https://api.openai.com/v1", failing, false},
		{"unix:///run/llm.sock", nil, false},
		{"http:///v1", nil, false},
	} {
		u, err := url.Parse(tc.base)
		if err != nil {
			t.Fatal(err)
		}
		if got := shouldPark(u, tc.proxy); got != tc.want {
			t.Errorf("shouldPark(%s) = %v, want %v", tc.base, got, tc.want)
		}
	}
}

// TestPreconnectLeavesACallersClientAlone: a provider given an HTTP
// client does not preconnect and keeps the client as it is.
func TestPreconnectLeavesACallersClientAlone(t *testing.T) {
	c := &http.Client{}
	p := NewOpenAI(Config{BaseURL: "https://api.openai.com/v1", HTTPClient: c}).(*openAIProvider)
	if p.pre != nil || p.client != c || c.Transport != nil {
		t.Fatal("the caller's client was replaced or changed")
	}
	p.Preconnect() // does nothing
}

// TestPreconnectStreamsThroughProvidertest: a whole streamed answer from
// the scripted server comes over the parked connection.
func TestPreconnectStreamsThroughProvidertest(t *testing.T) {
	srv := providertest.New(t, providertest.Text("hello there"))
	p, parked := preconnected(t, srv.URL, nil)
	p.Preconnect()
	if err := <-parked; err != nil {
		t.Fatal(err)
	}
	s, err := p.Stream(context.Background(), Request{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if got := drainText(t, s); got != "hello there" {
		t.Fatalf("text %q", got)
	}
	if n := srv.Connections(); n != 1 {
		t.Fatalf("the server accepted %d connections; want 1", n)
	}
	// The request just finished: its keep-alive connection serves the next
	// one, and nothing is parked.
	p.Preconnect()
	p.pre.mu.Lock()
	dialing := p.pre.dialing
	p.pre.mu.Unlock()
	if dialing {
		t.Fatal("Preconnect dialled right after a request finished")
	}
}

// BenchmarkFirstRequest measures a fresh provider's first request against
// a TLS server on 127.0.0.1, from "Enter" (Stream called) to the server
// having read the request's body: cold (DNS-free, but TCP and TLS on the
// way) and after a Preconnect that had time to finish.
func BenchmarkFirstRequest(b *testing.B) {
	read := make(chan time.Time, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		read <- time.Now()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, preconnectSSE)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	for _, pre := range []bool{false, true} {
		name := map[bool]string{false: "Cold", true: "Preconnected"}[pre]
		b.Run(name, func(b *testing.B) {
			var total time.Duration
			for b.Loop() {
				b.StopTimer()
				p, parked := preconnected(b, srv.URL+"/v1", srv)
				if pre {
					p.Preconnect()
					if err := <-parked; err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				enter := time.Now()
				s, err := p.Stream(context.Background(), Request{Model: "m"})
				if err != nil {
					b.Fatal(err)
				}
				total += (<-read).Sub(enter)
				b.StopTimer()
				drainText(b, s)
				p.client.CloseIdleConnections()
				b.StartTimer()
			}
			b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "enter-to-body-ms")
		})
	}
}
