package tui

import "github.com/ctxloop/agent/internal/config"

// costLabel is a session's cost as the chat shows it: "cost unknown" when
// it cost nothing and its model has no price (a local or unlisted model:
// its spending is not known, not zero), else formatCost. A cost reported by
// the provider shows whatever the price.
func costLabel(cfg *config.Config, model string, usd float64) string {
	if usd == 0 && cfg != nil {
		if info, _ := cfg.ModelInfo(model); !info.Price.Known() {
			return "cost unknown"
		}
	}
	return formatCost(usd)
}
