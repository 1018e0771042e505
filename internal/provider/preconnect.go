package provider

// Preconnect: the connection to the server is opened ahead of the request.
// The first request of a process, and the first after the keep-alive
// connection went idle and closed, would otherwise pay DNS, the TCP
// handshake and the TLS handshake between Enter and the request on the
// wire; a person typing (or a headless run opening its database) gives
// time to do that beforehand.
//
// The contract: Preconnect returns at once; in the background it dials the
// base URL's host (for https also the TLS handshake, with the tls.Config
// the requests use: ServerName, ALPN "h2" and "http/1.1") and parks the
// connection. Nothing is written on it: no request, no key. The
// transport's dial hands the parked connection to the next request to
// that address if it is younger than parkedMaxAge and the server has not
// closed it, else closes it and dials as before. At most one connection is
// parked or being dialled per provider; none is made while a request is in
// flight or when one finished within recentUseWindow (its keep-alive
// connection is likely still open). A provider whose client the caller
// gave, or whose base URL a proxy applies to, or whose base URL is not
// plain http(s), never preconnects. Errors are silent: the real request
// dials again and reports its own.

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// Preconnector is implemented by a Provider that can open its connection
// to the server ahead of the next request.
type Preconnector interface {
	// Preconnect returns at once; the connection is dialled in the
	// background and used by the next request if it comes soon enough.
	Preconnect()
}

// parkedMaxAge bounds how long a parked connection waits for a request:
// servers close connections that carry no request (often after 30-60 s),
// and one that did so would fail the request it was handed to.
const parkedMaxAge = 30 * time.Second

// recentUseWindow: a request that finished less than this ago left a
// keep-alive connection in the transport's pool, which the next request
// uses; no connection is parked then.
const recentUseWindow = 30 * time.Second

// parkDialTimeout bounds the background dial and handshake.
const parkDialTimeout = 30 * time.Second

// errHandshakeTimeout is the transport's own message for a TLS handshake
// that took longer than TLSHandshakeTimeout (Classify knows it).
var errHandshakeTimeout = errors.New("net/http: TLS handshake timeout")

// Preconnect implements Preconnector; it does nothing for a provider that
// does not preconnect (see the file comment).
func (p *openAIProvider) Preconnect() {
	if p.pre != nil {
		p.pre.preconnect()
	}
}

// preconnector dials, parks and hands out the connection of one provider.
type preconnector struct {
	addr      string      // host:port of the base URL
	tls       *tls.Config // the requests' TLS config; nil for http
	dial      func(ctx context.Context, network, addr string) (net.Conn, error)
	handshake time.Duration // TLS handshake timeout; 0: none
	now       func() time.Time
	// parked, when set (tests), is called after each background dial
	// with its error.
	parked func(error)

	mu       sync.Mutex
	conn     net.Conn    // the parked connection; nil when none
	raw      *peekedConn // its TCP connection, for the liveness check
	at       time.Time   // when it was parked
	expiry   *time.Timer // closes it at parkedMaxAge if no request took it
	dialing  bool        // a background dial is under way
	inflight int         // requests sent and not finished
	lastDone time.Time   // when the last request finished
}

// newClient returns the provider's HTTP client for base: a transport
// cloned from http.DefaultTransport (every setting kept) whose dial can
// hand out a parked connection, and its preconnector; or a plain client
// and nil when preconnecting does not apply (see shouldPark).
func newClient(base string) (*http.Client, *preconnector) {
	dt, ok := http.DefaultTransport.(*http.Transport)
	u, err := url.Parse(base)
	if !ok || err != nil || !shouldPark(u, dt.Proxy) {
		return &http.Client{}, nil
	}
	t := dt.Clone()
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	pc := &preconnector{addr: net.JoinHostPort(u.Hostname(), port), dial: t.DialContext, now: time.Now}
	if pc.dial == nil {
		pc.dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	t.DialContext = pc.dialContext
	if u.Scheme == "https" {
		cfg := &tls.Config{}
		if t.TLSClientConfig != nil {
			cfg = t.TLSClientConfig.Clone()
		}
		if cfg.ServerName == "" {
			cfg.ServerName = u.Hostname()
		}
		if len(cfg.NextProtos) == 0 {
			cfg.NextProtos = []string{"h2", "http/1.1"}
		}
		pc.tls, pc.handshake = cfg, t.TLSHandshakeTimeout
		t.DialTLSContext = pc.dialTLSContext
		// A custom TLS dial turns HTTP/2 off unless forced; a *tls.Conn
		// that negotiated "h2" is then used as HTTP/2.
		t.ForceAttemptHTTP2 = true
	}
	return &http.Client{Transport: &trackedTransport{base: t, pc: pc}}, pc
}

// shouldPark reports whether a provider for u may preconnect: an http or
// https URL with a host, which no proxy applies to.
func shouldPark(u *url.URL, proxy func(*http.Request) (*url.URL, error)) bool {
	if (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return false
	}
	if proxy != nil {
		if pu, err := proxy(&http.Request{URL: u, Header: http.Header{}}); err != nil || pu != nil {
			return false
		}
	}
	return true
}

// wantsPark is the decision Preconnect makes: nothing parked or being
// dialled, no request in flight, and none finished within recentUseWindow.
func wantsPark(now time.Time, parked, dialing bool, inflight int, lastDone time.Time) bool {
	if parked || dialing || inflight > 0 {
		return false
	}
	return lastDone.IsZero() || now.Sub(lastDone) >= recentUseWindow
}

// preconnect starts the background dial when wantsPark says so.
func (pc *preconnector) preconnect() {
	pc.mu.Lock()
	now := pc.now()
	if pc.conn != nil && now.Sub(pc.at) >= parkedMaxAge {
		pc.dropLocked()
	}
	if !wantsPark(now, pc.conn != nil, pc.dialing, pc.inflight, pc.lastDone) {
		pc.mu.Unlock()
		return
	}
	pc.dialing = true
	pc.mu.Unlock()
	go pc.dialAndPark()
}

// dialAndPark dials (and shakes hands) and parks the connection.
func (pc *preconnector) dialAndPark() {
	ctx, cancel := context.WithTimeout(context.Background(), parkDialTimeout)
	defer cancel()
	var conn net.Conn
	raw, err := pc.dial(ctx, "tcp", pc.addr)
	if err == nil {
		conn = raw
		pr := &peekedConn{Conn: raw}
		if pc.tls != nil {
			conn, err = pc.clientHandshake(ctx, pr, pc.tls)
		}
		if err == nil {
			pc.mu.Lock()
			pc.conn, pc.raw, pc.at = conn, pr, pc.now()
			pc.expiry = time.AfterFunc(parkedMaxAge, func() { pc.expire(conn) })
			pc.mu.Unlock()
		}
	}
	pc.mu.Lock()
	pc.dialing = false
	hook := pc.parked
	pc.mu.Unlock()
	if hook != nil {
		hook(err)
	}
}

// expire closes conn if it is still the parked connection.
func (pc *preconnector) expire(conn net.Conn) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.conn == conn {
		pc.dropLocked()
	}
}

// dropLocked closes the parked connection.
func (pc *preconnector) dropLocked() {
	if pc.expiry != nil {
		pc.expiry.Stop()
	}
	pc.conn.Close()
	pc.conn, pc.raw, pc.expiry = nil, nil, nil
}

// close closes the parked connection, if any.
func (pc *preconnector) close() {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.conn != nil {
		pc.dropLocked()
	}
}

// take hands out the parked connection for addr when it is young enough
// and still open; nil means dial.
func (pc *preconnector) take(addr string) net.Conn {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.conn == nil || addr != pc.addr {
		return nil
	}
	conn, raw, at := pc.conn, pc.raw, pc.at
	pc.expiry.Stop()
	pc.conn, pc.raw, pc.expiry = nil, nil, nil
	// A TLS server may have sent data (session tickets, HTTP/2 settings);
	// a plain HTTP server sends nothing before a request but a goodbye.
	if pc.now().Sub(at) >= parkedMaxAge || !raw.alive(pc.tls != nil) {
		conn.Close()
		return nil
	}
	return conn
}

// dialContext is the transport's dial for http.
func (pc *preconnector) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if pc.tls == nil {
		if c := pc.take(addr); c != nil {
			return c, nil
		}
	}
	return pc.dial(ctx, network, addr)
}

// dialTLSContext is the transport's dial for https: the parked connection,
// or a new one past the handshake.
func (pc *preconnector) dialTLSContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if c := pc.take(addr); c != nil {
		return c, nil
	}
	cfg := pc.tls
	if addr != pc.addr {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			host = addr
		}
		cfg = cfg.Clone()
		cfg.ServerName = host
	}
	raw, err := pc.dial(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return pc.clientHandshake(ctx, raw, cfg)
}

// clientHandshake runs the TLS handshake on raw within the transport's
// handshake timeout; raw is closed on failure.
func (pc *preconnector) clientHandshake(ctx context.Context, raw net.Conn, cfg *tls.Config) (*tls.Conn, error) {
	tc := tls.Client(raw, cfg)
	hctx := ctx
	if pc.handshake > 0 {
		var cancel context.CancelFunc
		hctx, cancel = context.WithTimeout(ctx, pc.handshake)
		defer cancel()
	}
	if err := tc.HandshakeContext(hctx); err != nil {
		raw.Close()
		if ctx.Err() == nil && errors.Is(hctx.Err(), context.DeadlineExceeded) {
			return nil, errHandshakeTimeout
		}
		return nil, err
	}
	return tc, nil
}

// begin and end count the requests in flight and note when the last one
// finished (trackedTransport).
func (pc *preconnector) begin() {
	pc.mu.Lock()
	pc.inflight++
	pc.mu.Unlock()
}

func (pc *preconnector) end() {
	pc.mu.Lock()
	pc.inflight--
	pc.lastDone = pc.now()
	pc.mu.Unlock()
}

// trackedTransport tells the preconnector when requests start and finish
// (their body closed).
type trackedTransport struct {
	base *http.Transport
	pc   *preconnector
}

func (t *trackedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.pc.begin()
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		t.pc.end()
		return nil, err
	}
	resp.Body = &endOnClose{ReadCloser: resp.Body, end: t.pc.end}
	return resp, nil
}

// CloseIdleConnections closes the pool's idle connections and the parked
// one.
func (t *trackedTransport) CloseIdleConnections() {
	t.base.CloseIdleConnections()
	t.pc.close()
}

// endOnClose calls end once, when the body is closed.
type endOnClose struct {
	io.ReadCloser
	once sync.Once
	end  func()
}

func (b *endOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.end)
	return err
}

// peekedConn is a parked TCP connection: what its liveness check read
// (alive) is handed to the first Read.
type peekedConn struct {
	net.Conn
	pending []byte
}

func (c *peekedConn) Read(p []byte) (int, error) {
	if len(c.pending) > 0 {
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// alive reports, without blocking, whether the server has not closed the
// connection. What it sent is read and kept for Read when dataOK, else
// any data means the server is done with it (a plain HTTP server says
// nothing before a request but "408" and goodbye).
func (c *peekedConn) alive(dataOK bool) bool {
	for range 64 {
		switch peek(c.Conn) {
		case peekNothing, peekUnknown:
			return true
		case peekClosed:
			return false
		}
		if !dataOK {
			return false
		}
		buf := make([]byte, 16<<10)
		n, err := c.Conn.Read(buf) // data is waiting: does not block
		c.pending = append(c.pending, buf[:n]...)
		if err != nil {
			return false
		}
	}
	return true
}

// peekResult is what a non-blocking look at a connection found.
type peekResult int

const (
	peekUnknown peekResult = iota // the platform cannot tell
	peekNothing                   // open, nothing to read
	peekData                      // open, data to read
	peekClosed                    // closed by the peer, or failed
)
