package loop

import (
	"fmt"
	"time"
)

// The git status of a headless run's prompt is bounded (issue 36): `agent
// run` starts `git status` while the program initialises (earlygit) and
// its first request waits at most headlessStatusBudget for it. A
// repository large enough that git has not answered by then (git lstat's
// every tracked file and reads every directory for untracked ones: 13,000
// files take 30–180 ms) adds no more than the budget to the start, and
// the prompt says plainly that the status was not gathered rather than
// leaving the model to think the tree clean. The chat is not bounded:
// it gathers the environment while the user types (PrefetchEnvironment),
// with no early run to take, and runs git to the end (earlygit.Timeout).

// headlessStatusBudget is the most a headless start waits for git status.
const headlessStatusBudget = 20 * time.Millisecond

// statusNotInTime is the prompt's git status when git took longer than
// budget.
func statusNotInTime(budget time.Duration) string {
	return fmt.Sprintf("(not gathered: git status took longer than %d ms in this repository, so the branch and changed files are unknown; run `git status` to see them)", budget.Milliseconds())
}
