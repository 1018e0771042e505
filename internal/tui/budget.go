package tui

import (
	"fmt"
	"strconv"
	"strings"
)

// budgetCmd is /budget [USD]: without an argument it tells the session's
// spending cap and cost; with one it sets the cap (0 removes it), as a
// user raising it after a stop does. The turn stopped by the cap is not
// resumed: the next message carries on.
func (m *Model) budgetCmd(arg string) {
	if m.runner == nil {
		m.chat.add(&noticeItem{kind: noticeWarn, text: "no session yet: the budget applies once the first message is sent"})
		return
	}
	if arg == "" {
		cost := strings.TrimPrefix(costLabel(m.opt.Loop.Config, sessionModel(m.sess, m.opt.Loop.Config), m.sess.CostUSD), "cost ")
		text := fmt.Sprintf("no budget; this session has cost %s", cost)
		if b := m.runner.Budget(); b > 0 {
			text = fmt.Sprintf("budget %s; this session has cost %s", formatCost(b), cost)
		}
		m.chat.add(&noticeItem{kind: noticeInfo, text: text})
		return
	}
	usd, err := strconv.ParseFloat(strings.TrimPrefix(arg, "$"), 64)
	if err != nil || usd < 0 {
		m.chat.add(&noticeItem{kind: noticeError, text: fmt.Sprintf("/budget %s: want an amount in US dollars, such as /budget 2.50", arg)})
		return
	}
	m.runner.SetBudget(usd)
	if usd == 0 {
		m.chat.add(&noticeItem{kind: noticeInfo, text: "no budget for this session"})
		return
	}
	m.chat.add(&noticeItem{kind: noticeInfo, text: fmt.Sprintf("budget %s for this session (cost so far %s)", formatCost(usd),
		strings.TrimPrefix(costLabel(m.opt.Loop.Config, sessionModel(m.sess, m.opt.Loop.Config), m.sess.CostUSD), "cost "))})
}
