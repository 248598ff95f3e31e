package protocol

import (
	"slices"
	"sort"
)

// Methods returns every row of the method table, sorted by name.
func Methods() []MethodSpec {
	out := slices.Clone(methodTable)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Pair is one (method, direction) of the table; $/cancel gives two pairs.
type Pair struct {
	Method    string
	Direction Direction
}

// Pairs lists every (method, sending direction) pair of the table.
func Pairs() []Pair {
	var out []Pair
	for _, s := range Methods() {
		if s.Direction == DirBoth {
			out = append(out, Pair{s.Name, CoreToHost}, Pair{s.Name, HostToCore})
			continue
		}
		out = append(out, Pair{s.Name, s.Direction})
	}
	return out
}

// ShapeNames returns the names of Shapes() sorted.
func ShapeNames() []string {
	var names []string
	for n := range shapes() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
