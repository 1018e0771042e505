package overlay

import "testing"

func TestChoiceRowKeys(t *testing.T) {
	for _, tc := range []struct {
		keys []string
		want int // the last key's answer
		sel  int
	}{
		{[]string{"enter"}, 0, 0},
		{[]string{"right", "enter"}, 1, 1},
		{[]string{"tab", "tab", "tab"}, noChoice, 0}, // wraps
		{[]string{"left"}, noChoice, 2},
		{[]string{"shift+tab", "enter"}, 2, 2},
		{[]string{"alt+y"}, 1, 0}, // a shortcut answers without moving
		{[]string{"up", "x", "esc"}, noChoice, 0},
	} {
		r := choiceRow{n: 3, shortcuts: map[string]int{"alt+y": 1}}
		got := noChoice
		for _, k := range tc.keys {
			got = r.update(k)
		}
		if got != tc.want || r.sel != tc.sel {
			t.Errorf("%v: choice %d, sel %d; want %d, %d", tc.keys, got, r.sel, tc.want, tc.sel)
		}
	}
	r := choiceRow{n: 2, shortcuts: map[string]int{"alt+y": 1}}
	if !r.shortcut("alt+y") || r.shortcut("y") {
		t.Error("shortcut: want alt+y only")
	}
}
