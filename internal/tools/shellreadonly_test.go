package tools

import "testing"

// TestReadOnlyCommand is plan mode's bash rule: only lines proven
// read-only pass; every way a line could write or run code is refused.
func TestReadOnlyCommand(t *testing.T) {
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{"ls -la", true},
		{"cat go.mod && git log --oneline -5", true},
		{"git diff HEAD~1 -- main.go", true},
		{"grep -rn 'func main' . | head -20", true},
		{"wc -l *.go 2>/dev/null", true},
		{"sort -u names.txt", true},
		{"cat < in.txt", true},
		{"touch x", false},
		{"rm -rf build", false},
		{"echo hi > x", false},
		{"echo hi >> x", false},
		{"cat a | tee b", false},
		{"sed -i s/a/b/ f", false},
		{"sed -n 1p f", false},
		{"sort -o out in", false},
		{"sort -uo out in", false},
		{"sort --output=out in", false},
		{"tree -o out", false},
		{"rg --pre ./run x", false},
		{"git diff --output=patch", false},
		{"git log --ext-diff", false},
		{"git grep -O foo", false},
		{"git checkout -- .", false},
		{"git -c core.pager=x log", false},
		{"git status", false},
		{"find . -delete", false},
		{"xargs rm < list", false},
		{"bash -c 'ls'", false},
		{"eval ls", false},
		{"ls $(rm x)", false},
		{"cat <(rm x)", false},
		{"ls $DIR", false},
		{"X=1 ls", false},
		{"python3 -c 'open(\"x\",\"w\")'", false},
		{"awk '{print > \"x\"}' f", false},
		{"cp a b", false},
		{"mv a b", false},
		{"git diff *", false},
		{"git log -- {--output=x,y}", false},
		{"git blame *", false},
		{"sort -T . names.txt", false},
		{"tree -R -H .", false},
		{"git cat-file --textconv HEAD:a", false},
		{"git diff -- '*.go'", true},
		{"ls *.go", true},
		{"", false},
		{"ls (", false},
	} {
		ok, why := ReadOnlyCommand(tc.line)
		if ok != tc.ok {
			t.Errorf("ReadOnlyCommand(%q) = %v (%s), want %v", tc.line, ok, why, tc.ok)
		}
		if !ok && why == "" {
			t.Errorf("ReadOnlyCommand(%q) refused without a reason", tc.line)
		}
	}
}
