package loop

import (
	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/config"
)

// cacheBreakpoints picks the messages of a step's request that end a
// cached prefix, for a model cached only where told (config.CacheExplicit):
// the stable system prompt (msgs[0] when the request has system messages;
// the tool schemas come before it in the provider's prefix), the last
// message (the prefix the next step will reuse) and the last message of
// the previous step's request (the one before the newest assistant
// message), so that the prefix the previous step wrote is read back with
// the same bytes. Three, within the provider's four.
func cacheBreakpoints(style string, msgs []openai.ChatCompletionMessage, systems int) []int {
	if style != config.CacheExplicit || len(msgs) == 0 {
		return nil
	}
	var marks []int
	if systems > 0 {
		marks = append(marks, 0)
	}
	for i := len(msgs) - 1; i > systems; i-- {
		if msgs[i].Role == openai.ChatMessageRoleAssistant {
			if i-1 >= systems && i-1 != 0 {
				marks = append(marks, i-1)
			}
			break
		}
	}
	if last := len(msgs) - 1; len(marks) == 0 || marks[len(marks)-1] != last {
		marks = append(marks, last)
	}
	return marks
}
