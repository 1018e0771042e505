package mention

import (
	"container/heap"
	"strings"
)

// Ranking is a pure function of the query and the paths. A path matches
// when the query's characters appear in it in order, case-insensitively.
// Among matches, better scores come first: a match inside the file name
// beats one spread over directories, consecutive characters beat
// scattered ones, a match at the start of a name or after a separator
// ("/", "_", "-", ".") counts extra, and shorter paths win ties. An empty
// query lists the top-level entries first.

// score rates path (lowered) against query (lowered); ok is false when
// the query is not a subsequence of the path.
func score(path, query string) (int, bool) {
	if query == "" {
		return -strings.Count(strings.TrimSuffix(path, "/"), "/")*100 - len(path), true
	}
	base := strings.LastIndexByte(strings.TrimSuffix(path, "/"), '/') + 1
	s, qi, prev := 0, 0, -2
	for i := 0; i < len(path) && qi < len(query); i++ {
		if path[i] != query[qi] {
			continue
		}
		s += 1
		if i == prev+1 {
			s += 5 // consecutive
		}
		if i == 0 || strings.IndexByte("/_-. ", path[i-1]) >= 0 {
			s += 8 // start of a word
		}
		if i >= base {
			s += 3 // in the file name
		}
		prev = i
		qi++
	}
	if qi < len(query) {
		return 0, false
	}
	if strings.Contains(path[base:], query) {
		s += 20 // the name contains the query as typed
	}
	return s*64 - len(path), true
}

type scored struct {
	i     int
	score int
}

// minHeap keeps the best limit matches seen, the worst on top.
type minHeap []scored

func (h minHeap) Len() int { return len(h) }
func (h minHeap) Less(a, b int) bool {
	if h[a].score != h[b].score {
		return h[a].score < h[b].score
	}
	return h[a].i > h[b].i
}
func (h minHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *minHeap) Push(x any)   { *h = append(*h, x.(scored)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// rank returns the best limit of paths for query; lower holds the paths
// lowered.
func rank(paths, lower []string, query string, limit int) []string {
	if limit <= 0 {
		return nil
	}
	q := strings.ToLower(query)
	h := make(minHeap, 0, limit+1)
	for i, p := range lower {
		s, ok := score(p, q)
		if !ok {
			continue
		}
		if len(h) < limit {
			heap.Push(&h, scored{i, s})
		} else if s > h[0].score {
			h[0] = scored{i, s}
			heap.Fix(&h, 0)
		}
	}
	out := make([]string, len(h))
	for k := len(h) - 1; k >= 0; k-- {
		out[k] = paths[heap.Pop(&h).(scored).i]
	}
	return out
}

// Rank returns the best limit of paths for query (for tests and callers
// without an Index).
func Rank(paths []string, query string, limit int) []string {
	lower := make([]string, len(paths))
	for i, p := range paths {
		lower[i] = strings.ToLower(p)
	}
	return rank(paths, lower, query, limit)
}
