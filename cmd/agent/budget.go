package main

// The spending cap on the command line, and costs as people read them: a
// cap is refused for a model without a price (it could never stop the
// run), and such a model's cost is "unknown", never "$0.0000".

import (
	"fmt"

	"github.com/ctxloop/agent/internal/config"
)

// unpricedCap is the bad-usage error of --max-cost capUSD when a model the
// run may call — the session's, task.model's or small_model's — has no
// price; nil when every one has one or there is no cap.
func unpricedCap(cfg *config.Config, model string, capUSD float64) error {
	if capUSD <= 0 {
		return nil
	}
	for _, m := range []string{model, cfg.Task.Model, cfg.SmallModel} {
		if m == "" {
			continue
		}
		if info, _ := cfg.ModelInfo(m); !info.Price.Known() {
			return usageError("--max-cost %s: model %s has no price, so its spending cannot be held to a cap; "+
				"set models.%s.price in your config", fmt.Sprint(capUSD), m, m)
		}
	}
	return nil
}

// costText is a session's cost for a listing: "unknown" when it is zero and
// its model has no price, else dollars to four places.
func costText(cfg *config.Config, model string, usd float64) string {
	if usd == 0 && cfg != nil {
		if info, _ := cfg.ModelInfo(model); !info.Price.Known() {
			return "unknown"
		}
	}
	return fmt.Sprintf("$%.4f", usd)
}
