package compact

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Sections are the headings a summary is asked to have, in order: what
// must survive a compaction is the goal, the user's standing rules and the
// progress, and the refs of the key artefacts, which recall fetches from
// the history the summary replaces.
var Sections = []string{
	"Goal",
	"Standing user instructions and constraints",
	"Done so far",
	"Files touched",
	"Current state",
	"Next steps",
	"References",
}

// MaxFocusChars caps the focus instructions of /compact FOCUS put into a
// summary request; longer ones are trimmed with a note.
const MaxFocusChars = 2000

// SummaryPrompt returns the instructions of a summary request, to send after
// the previous summary and the entries to summarise. focus is the optional
// text of `/compact FOCUS`.
func SummaryPrompt(focus string) string {
	var b strings.Builder
	b.WriteString(`Summarise the conversation above: a coding session between a user and you, an AI coding agent working in their repository. The conversation will be replaced by your summary, so it must carry everything needed to continue the work without the messages it replaces. If the conversation begins with an earlier summary, merge it: keep what is still true, update what changed, drop nothing that still applies.

Write Markdown with exactly these sections, in this order:

## Goal
What the user wants overall, in one or two sentences.

## Standing user instructions and constraints
Every rule, preference and constraint the user gave that still applies: coding style, commands or tools to use or avoid, files or areas not to touch, how to test, how to answer. Keep their wording; keep old ones that were never withdrawn; when a later instruction overrides an earlier one, keep only the later.

## Done so far
What is finished, with concrete outcomes: changes made, commands run and their results, tests passing or failing, decisions taken and why.

## Files touched
Every file read, created or changed that matters to the work, one per line with its exact path and what was done to it or learnt from it.

## Current state
Where things stand at the end of the conversation: what was in progress, errors still open, anything half-done or unverified.

## Next steps
The concrete next actions, in order.

## References
The original conversation stays searchable with the recall tool, which fetches the full text of a tool call by its ref (shown as "ref=…" in the transcript). List the refs of the key artefacts, one per line with what each holds: files written or read whose content matters, commands whose outputs mattered (test failures, build errors), and anything the next steps will need verbatim. Keep the refs of an earlier summary's list that still matter.

Rules: be specific (exact paths, function names, commands, error messages, values); invent nothing; write "None." under a section with nothing to say; answer with the summary only, no preamble, and call no tools. Do not copy the section "User messages (verbatim…)" of an earlier summary: those messages are kept separately.`)
	focus = strings.TrimSpace(focus)
	if focus != "" {
		b.WriteString("\n\nThe user asked this summary to focus on the following; give it particular attention and detail:\n\n")
		b.WriteString(trimFocus(focus))
	}
	return b.String()
}

// trimFocus cuts focus to MaxFocusChars characters (runes) with a note.
func trimFocus(focus string) string {
	n := utf8.RuneCountInString(focus)
	if n <= MaxFocusChars {
		return focus
	}
	cut := 0
	for range MaxFocusChars {
		_, size := utf8.DecodeRuneInString(focus[cut:])
		cut += size
	}
	return fmt.Sprintf("%s\n[focus instructions trimmed from %d to %d characters]", focus[:cut], n, MaxFocusChars)
}

// UserMessagesHeading starts the section of a stored summary that keeps the
// user's messages verbatim.
const UserMessagesHeading = "## User messages (verbatim, oldest first)"

const (
	openUserMessage         = "<user_message>"
	closeUserMessage        = "</user_message>"
	escapedCloseUserMessage = `<\/user_message>`
)

// ComposeSummary returns the stored body of a summary message: the model's
// summary (cut before a copy of UserMessagesHeading, if it made one), then UserMessagesHeading and each user message (Plan.UserMessages,
// oldest first) verbatim in <user_message> tags. Later messages take
// precedence over earlier ones, which is why they are in time order.
func ComposeSummary(summaryText string, userMessages []string) string {
	// A model that copied the previous summary's verbatim section would
	// duplicate it: that section is ours to write.
	summaryText, _ = SplitSummary(summaryText)
	var b strings.Builder
	b.WriteString(summaryText)
	if len(userMessages) == 0 {
		return b.String()
	}
	b.WriteString("\n\n")
	b.WriteString(UserMessagesHeading)
	b.WriteString("\n\nWhat the user wrote in the summarised part of the conversation, kept word for word; later messages take precedence.\n")
	for _, m := range userMessages {
		b.WriteString("\n" + openUserMessage + "\n")
		b.WriteString(strings.ReplaceAll(m, closeUserMessage, escapedCloseUserMessage))
		b.WriteString("\n" + closeUserMessage + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// SplitSummary undoes ComposeSummary: the model's summary and the verbatim
// user messages, oldest first.
func SplitSummary(body string) (summary string, userMessages []string) {
	i := strings.Index(body, "\n"+UserMessagesHeading)
	if i < 0 {
		if strings.HasPrefix(body, UserMessagesHeading) {
			i = 0
		} else {
			return strings.TrimSpace(body), nil
		}
	}
	summary = strings.TrimSpace(body[:i])
	rest := body[i:]
	for {
		start := strings.Index(rest, openUserMessage+"\n")
		if start < 0 {
			break
		}
		rest = rest[start+len(openUserMessage)+1:]
		end := strings.Index(rest, "\n"+closeUserMessage)
		if end < 0 {
			break
		}
		userMessages = append(userMessages, strings.ReplaceAll(rest[:end], escapedCloseUserMessage, closeUserMessage))
		rest = rest[end+len(closeUserMessage)+1:]
	}
	return summary, userMessages
}

// Errors of Validate and CheckSummary.
var (
	ErrEmptySummary = errors.New("compaction: empty summary")
	ErrNotReduced   = errors.New("compaction did not reduce the context")
	ErrSummaryLong  = errors.New("compaction: the summary is longer than what it replaces")
)

// CheckSummary rejects a summary that is empty or whitespace, or that costs
// at least as much as what it replaces (summaryTokens ≥ replacedTokens):
// such a summary is a refusal, a failure or a copy, never progress.
func CheckSummary(summary string, summaryTokens, replacedTokens int64) error {
	if strings.TrimSpace(summary) == "" {
		return ErrEmptySummary
	}
	if replacedTokens > 0 && summaryTokens >= replacedTokens {
		return fmt.Errorf("%w: %d tokens for %d", ErrSummaryLong, summaryTokens, replacedTokens)
	}
	return nil
}

// Validate rejects a compaction whose summary is empty or that did not make
// the context smaller (tokensAfter ≥ tokensBefore, both calculator totals).
// A rejected compaction is logged and its summary not used; pruning and
// truncation carry on.
func Validate(summary string, tokensBefore, tokensAfter int64) error {
	if strings.TrimSpace(summary) == "" {
		return ErrEmptySummary
	}
	if tokensAfter >= tokensBefore {
		return fmt.Errorf("%w: %d → %d", ErrNotReduced, tokensBefore, tokensAfter)
	}
	return nil
}
