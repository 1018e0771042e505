package tokens

// The BPE tables of tiktoken take 150–340 ms to decode, so they are never
// loaded on the start-up path: the first Count (or Ready) of an encoding
// starts one goroutine per encoding for the whole process, which loads the
// table, publishes it and exits. Until then every Count answers with Chars.

import (
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

const (
	encodingO200k  = "o200k_base"
	encodingCl100k = "cl100k_base"
)

// Tokenizer is an Estimator backed by an OpenAI BPE encoding whose tables
// load in the background. It is safe for concurrent use; Count never blocks.
type Tokenizer struct {
	loader *encodingLoader
}

// Count returns the number of BPE tokens of text once the tables are loaded,
// and Chars' estimate until then. Special-token markers in text are counted
// as ordinary text, as a provider would.
func (t *Tokenizer) Count(text string) int {
	enc := t.loader.get()
	if enc == nil {
		return Chars{}.Count(text)
	}
	n := 0
	for len(text) > 0 {
		chunk := chunkEnd(text, chunkBytes)
		n += len(enc.EncodeOrdinary(text[:chunk]))
		text = text[chunk:]
	}
	return n
}

// chunkBytes bounds the text given to the encoder at once. The BPE merge is
// quadratic in the length of a pre-token, and a pre-token can be a whole
// run of spaces, newlines, one letter or CJK text: 50 KB of those takes
// 1–2.5 s in one piece and milliseconds in chunks. Cutting at a newline or
// a space costs at most a token per chunk (< 1 %).
const chunkBytes = 1024

// chunkEnd returns where to cut text: len(text) if it is short, else after
// the last newline, or before the last space, in the second half of the
// first max bytes, else at a rune boundary near max.
func chunkEnd(text string, max int) int {
	if len(text) <= max {
		return len(text)
	}
	window := text[max/2 : max]
	if i := strings.LastIndexByte(window, '\n'); i >= 0 {
		return max/2 + i + 1
	}
	if i := strings.LastIndexByte(window, ' '); i > 0 {
		return max/2 + i
	}
	end := max
	for end > 0 && !utf8.RuneStart(text[end]) {
		end--
	}
	return end
}

// Ready returns a channel closed when the tables are loaded or failed to
// load; it starts the load if nothing did yet.
func (t *Tokenizer) Ready() <-chan struct{} {
	t.loader.start()
	return t.loader.ready
}

// Loaded reports whether Count uses the tokenizer (rather than Chars).
func (t *Tokenizer) Loaded() bool {
	return t.loader.enc.Load() != nil
}

// Err returns why the tables could not be loaded, once Ready is closed;
// Count then keeps answering with Chars.
func (t *Tokenizer) Err() error {
	select {
	case <-t.loader.ready:
		return t.loader.err
	default:
		return nil
	}
}

// Encoding names the BPE encoding, e.g. "o200k_base".
func (t *Tokenizer) Encoding() string { return t.loader.name }

// encodingLoader loads one encoding once per process.
type encodingLoader struct {
	name  string
	once  sync.Once
	ready chan struct{}
	enc   atomic.Pointer[tiktoken.Tiktoken]
	err   error // written before ready is closed
}

var (
	loadersMu sync.Mutex
	loaders   = map[string]*encodingLoader{}

	setOfflineLoader sync.Once
)

func loaderFor(name string) *encodingLoader {
	loadersMu.Lock()
	defer loadersMu.Unlock()
	l, ok := loaders[name]
	if !ok {
		l = &encodingLoader{name: name, ready: make(chan struct{})}
		loaders[name] = l
	}
	return l
}

// get returns the loaded encoding or nil, starting the load on first use.
func (l *encodingLoader) get() *tiktoken.Tiktoken {
	if enc := l.enc.Load(); enc != nil {
		return enc
	}
	l.start()
	return nil
}

func (l *encodingLoader) start() {
	l.once.Do(func() {
		// tiktoken's loader is a package variable without a lock: set it
		// before any loading goroutine exists, so the write happens-before
		// every read.
		setOfflineLoader.Do(func() { tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader()) })
		go l.load()
	})
}

func (l *encodingLoader) load() {
	defer close(l.ready)
	enc, err := tiktoken.GetEncoding(l.name)
	if err != nil {
		l.err = err
		return
	}
	l.enc.Store(enc)
}
