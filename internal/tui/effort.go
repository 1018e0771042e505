package tui

// /effort [level]: the reasoning effort of the chat's requests. Without
// an argument it tells the effort in force and the levels the session's
// model takes; with one it chooses that level from the next request on
// (the loop's Effort, shared with the open session and the next ones), or
// refuses it with the model's levels and leaves the effort as it was;
// "/effort default" goes back to the config's models.NAME.effort. The
// status line shows the effort sent (effortLabel).

import (
	"fmt"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/loop"
)

// effortNotice runs /effort arg on e for model and says what it did.
func effortNotice(e *loop.Effort, cfg *config.Config, model, arg string) *noticeItem {
	rule := config.EffortRuleOf(model)
	levels := fmt.Sprintf("model %s takes %s", model, rule.Allowed())
	if arg == "" {
		info, _ := cfg.ModelInfo(model)
		switch sent, chosen := loop.EffortSent(e, model, info), e.Chosen(); {
		case sent != "":
			return &noticeItem{kind: noticeInfo, text: fmt.Sprintf("effort %s; %s (/effort LEVEL changes it)", sent, levels)}
		case chosen != "":
			return &noticeItem{kind: noticeWarn, text: fmt.Sprintf("effort %s is not sent: %s", chosen, levels)}
		}
		return &noticeItem{kind: noticeInfo, text: fmt.Sprintf("no effort set: the server's default; %s (/effort LEVEL sets it)", levels)}
	}
	if arg == "default" {
		if e != nil {
			e.Set("")
		}
		return &noticeItem{kind: noticeInfo, text: "effort: the config's (models." + model + ".effort) or the server's default, from the next request"}
	}
	if err := rule.Check(arg); err != nil {
		return &noticeItem{kind: noticeError, text: "/effort " + arg + ": " + err.Error()}
	}
	if e == nil {
		return &noticeItem{kind: noticeError, text: "/effort: this chat cannot change the effort"}
	}
	e.Set(arg)
	return &noticeItem{kind: noticeInfo, text: fmt.Sprintf("effort %s from the next request", arg)}
}

// effortLabel is the status line's " · effort high" after the model, ""
// when none is sent.
func effortLabel(e *loop.Effort, cfg *config.Config, model string) string {
	if cfg == nil {
		return ""
	}
	info, _ := cfg.ModelInfo(model)
	if level := loop.EffortSent(e, model, info); level != "" {
		return " · effort " + level
	}
	return ""
}
