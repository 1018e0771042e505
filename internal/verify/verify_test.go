package verify

import "testing"

func TestRan(t *testing.T) {
	own := []string{"./check.sh", "just ci"}
	cases := []struct {
		cmd  string
		want bool
	}{
		{"go test ./...", true},
		{"go build ./cmd/agent", true},
		{"cd sub && go test -run TestX ./pkg/", true},
		{"CGO_ENABLED=0 go test ./...", true},
		{"time make", true},
		{"make check", true},
		{"npm test", true},
		{"npm run test:unit", true},
		{"pnpm run build", true},
		{"yarn test --watch=false", true},
		{"cargo test -p foo", true},
		{"pytest -q tests/", true},
		{"python3 -m pytest", true},
		{"python -m unittest discover", true},
		{"mvn -q verify", false}, // a flag before the goal: not in the table
		{"mvn verify", true},
		{"./gradlew test", true},
		{"ctest --output-on-failure", true},
		{"timeout 60 go test ./...", true},
		{"go test ./... 2>&1 | tail -20", true},
		{"./check.sh --fast", true},
		{"just ci", true},
		{"just fmt", false},
		{"ls -la", false},
		{"cat Makefile", false},
		{"echo go test", false},
		{"git diff", false},
		{"go run ./cmd/agent", false},
		{"npm install", false},
		{"grep -r 'make' .", false},
		{"", false},
	}
	for _, c := range cases {
		if got := Ran(c.cmd, own); got != c.want {
			t.Errorf("Ran(%q) = %v, want %v", c.cmd, got, c.want)
		}
	}
}

func TestNeeded(t *testing.T) {
	w := Call{Changed: true}
	cases := []struct {
		name  string
		calls []Call
		want  bool
	}{
		{"nothing ran", nil, false},
		{"reads only", []Call{{Command: "ls"}, {}}, false},
		{"a write, nothing after", []Call{w}, true},
		{"a write then ls", []Call{w, {Command: "ls"}}, true},
		{"a write then a test", []Call{w, {Command: "go test ./..."}}, false},
		{"a test then a write", []Call{{Command: "go test ./..."}, w}, true},
		{"a change that tests in the same command", []Call{{Changed: true, Command: "sed -i s/a/b/ x.go && go test ./..."}}, false},
		{"asked already", []Call{w, {Asked: true}, w}, false},
		{"own command after", []Call{w, {Command: "./check.sh"}}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Needed(c.calls, []string{"./check.sh"}); got != c.want {
				t.Errorf("Needed = %v, want %v", got, c.want)
			}
		})
	}
}
