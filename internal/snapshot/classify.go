package snapshot

// classify.go: what becomes of each path a snapshot lists, decided for
// many paths at once. Contract: classifyAll returns, for each path of a
// long list (classifyMin or more; a few paths are classified in turn by
// the caller), what classify says of it — an lstat and an open each,
// which on a first snapshot of a large tree is one per file — on
// classifiers goroutines; paths ending in "/" (nested repositories) and
// "" are left out. The answers are those of one call each, in any order.

import (
	"strings"
	"sync"
)

// classifyMin is the fewest paths classified in parallel.
const classifyMin = 256

// classifiers is how many goroutines classify.
const classifiers = 4

// classifyAll classifies paths with classify; nil for a short list.
func classifyAll(classify func(string) *Skip, paths []string) map[string]*Skip {
	if len(paths) < classifyMin {
		return nil
	}
	res := make([]*Skip, len(paths))
	var wg sync.WaitGroup
	next := make(chan int, classifiers)
	for range classifiers {
		wg.Go(func() {
			for i := range next {
				res[i] = classify(paths[i])
			}
		})
	}
	for i, p := range paths {
		if p != "" && !strings.HasSuffix(p, "/") {
			next <- i
		}
	}
	close(next)
	wg.Wait()
	out := make(map[string]*Skip, len(paths))
	for i, p := range paths {
		if p != "" && !strings.HasSuffix(p, "/") {
			out[p] = res[i]
		}
	}
	return out
}
