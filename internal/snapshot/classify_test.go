package snapshot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestClassifyAllAnswersAsClassify: a long list classified in parallel
// gets, path by path, classify's own answer: files kept, a file over the
// limit, a directory, a symlink, a path gone; nested repositories ("x/")
// and "" are not classified.
func TestClassifyAllAnswersAsClassify(t *testing.T) {
	needGit(t)
	work := t.TempDir()
	var list []string
	for i := range classifyMin {
		p := fmt.Sprintf("d%d/f%03d", i%7, i)
		list = append(list, p)
		os.MkdirAll(filepath.Join(work, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(work, p), []byte(p), 0o644)
	}
	os.WriteFile(filepath.Join(work, "big"), make([]byte, 5000), 0o644)
	os.Mkdir(filepath.Join(work, "dir"), 0o755)
	os.Symlink("big", filepath.Join(work, "link"))
	list = append(list, "big", "dir", "link", "gone", "nested/", "")
	s, err := Open(context.Background(), t.TempDir(), work, Options{MaxFileBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	got := classifyAll(s.classify, list)
	if len(got) != len(list)-2 {
		t.Fatalf("%d answers for %d paths", len(got), len(list)-2)
	}
	for _, p := range list[:len(list)-2] {
		if want := s.classify(p); !reflect.DeepEqual(got[p], want) {
			t.Errorf("%s: %+v, classify says %+v", p, got[p], want)
		}
	}
	if got["big"] == nil || got["big"].Reason != ReasonTooLarge || got["dir"] == nil || got["link"] != nil {
		t.Errorf("big %+v, dir %+v, link %+v", got["big"], got["dir"], got["link"])
	}
	if classifyAll(s.classify, list[:10]) != nil {
		t.Error("a short list was classified in parallel")
	}
}
