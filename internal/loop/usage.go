package loop

import (
	"github.com/ctxloop/agent/internal/message"
)

// costOf prices usage at model's price.
func (sp *stepper) costOf(model string, u message.Usage) float64 {
	info, _ := sp.opt.Config.ModelInfo(model)
	return costAt(info.Price, u)
}
