package registry

import (
	"fmt"
	"hash/maphash"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/cwx-dev/cwx/core/protocol"
)

// Bounds of the validation work (ARCHITECTURE.md, “Registry rules”).
const (
	// MaxSchemaCost bounds the schema evaluations one value of an input may cost: the
	// number of times the validator may apply a (sub)schema to any single value, at any
	// depth down to MaxInputDepth. A schema whose bound is higher is refused at admission.
	MaxSchemaCost = 1000
	// MaxInputDepth bounds the nesting of objects and arrays in a call's input (the wire's
	// and the gate's bound); a deeper input is refused before it is validated.
	MaxInputDepth = protocol.MaxDepth
	// maxCostSteps bounds the analysis itself: a schema whose bound takes more steps to
	// work out is refused as too complex.
	maxCostSteps = 10_000_000
)

// satMax is where cost arithmetic saturates: far above MaxSchemaCost, far below overflow.
const satMax = uint64(1) << 62

func satAdd(a, b uint64) uint64 {
	if a >= satMax || b >= satMax || a+b >= satMax {
		return satMax
	}
	return a + b
}

// costEdge is one application of a subschema to the same value, with the keyword path
// from the applying schema (allOf/1, $ref, …), for naming it in a refusal.
type costEdge struct {
	to int
	kw string
}

// costNode is one compiled (sub)schema and the subschemas it applies.
type costNode struct {
	loc  string
	same []costEdge // to the value itself: $ref, $dynamicRef, allOf, anyOf, oneOf, not, if/then/else, dependentSchemas
	// To the members of an object value: a member named k gets props[k] if present, and
	// every pattern, additional (only when k is not in props) and uneval. The analysis
	// counts every pattern as matching.
	props              map[string]int
	patterns           []int
	additional, uneval int // -1: none
	// To the items of an array value: one of itemAlts (prefixItems / items / additionalItems)
	// and every one of itemAll (contains, unevaluatedItems).
	itemAlts, itemAll []int
	// To other values: property names (each member name is a string value) and decoded
	// content.
	other []int
}

// costVec is what one schema costs a single value at some depth below the value it is
// applied to, by the kind of the path's last step: arr for an array item, other for a
// member name or decoded content, keys[k] for the member named k, obj for a member
// named anything else. keys may be shared with another vec until owned.
type costVec struct {
	arr, obj, other uint64
	keys            map[string]uint64
	kmax            uint64 // the largest of keys
	owned           bool
}

// maxCostKeys bounds the member names a vec tells apart; past it they are merged into obj
// (their maximum), which only makes the bound coarser.
const maxCostKeys = 64

func (v *costVec) get(k string) uint64 {
	if x, ok := v.keys[k]; ok {
		return x
	}
	return v.obj
}

func (v *costVec) max() uint64 { return max(v.arr, v.obj, v.other, v.kmax) }

// add adds w to v (same value, so the same step: member k of one is member k of the
// other). It returns the map entries it went through.
func (v *costVec) add(w *costVec) int {
	steps := 0
	switch {
	case len(w.keys) == 0 && w.obj == 0: // no member's cost changes
	case len(v.keys) == 0 && v.obj == 0: // v's members cost nothing yet: w's, shared
		v.keys, v.kmax, v.owned = w.keys, w.kmax, false
	default:
		if !v.owned {
			v.keys, v.owned = maps.Clone(v.keys), true
		}
		v.kmax = 0
		for k, x := range v.keys {
			v.keys[k] = satAdd(x, w.get(k))
			v.kmax = max(v.kmax, v.keys[k])
		}
		for k, x := range w.keys {
			if _, ok := v.keys[k]; !ok {
				if v.keys == nil {
					v.keys = map[string]uint64{}
				}
				v.keys[k] = satAdd(v.obj, x)
				v.kmax = max(v.kmax, v.keys[k])
			}
		}
		steps = len(v.keys) + len(w.keys)
	}
	v.arr, v.obj, v.other = satAdd(v.arr, w.arr), satAdd(v.obj, w.obj), satAdd(v.other, w.other)
	if len(v.keys) > maxCostKeys {
		v.obj, v.keys, v.kmax, v.owned = max(v.obj, v.kmax), nil, 0, false
	}
	return steps
}

// costGraph is a compiled schema as the validator walks it.
type costGraph struct {
	nodes []costNode
	index map[*jsonschema.Schema]int
	base  string // the resource URL, stripped from locations
}

// costError is why a schema was refused by the cost analysis.
type costError struct {
	pointer string // the JSON pointer (#/…) of the schema the refusal names
	reason  string
}

// schemaCost bounds the schema evaluations any one value of an input can cost under s,
// for inputs nested at most MaxInputDepth deep. It returns the bound, or a refusal when the
// bound is above MaxSchemaCost (naming the schema where the work multiplies), when a
// schema applies itself to the same value, or when the analysis is too long.
func schemaCost(s *jsonschema.Schema) (uint64, *costError) {
	g := buildCostGraph(s)
	order, cyc := g.sameOrder()
	if cyc >= 0 {
		return 0, &costError{pointer: g.pointer(cyc), reason: "applies itself to the same value again (a $ref loop that consumes no input, which can never finish)"}
	}
	n := len(g.nodes)
	layers := make([][]uint64, 0, MaxInputDepth+1)
	// Depth 0: the value the schema is applied to; each schema counts once, plus what it
	// applies to the same value.
	cur := make([]uint64, n)
	for _, i := range order {
		c := uint64(1)
		for _, e := range g.nodes[i].same {
			c = satAdd(c, cur[e.to])
		}
		cur[i] = c
	}
	layers = append(layers, cur)
	worst := cur[0]
	steps := 0
	seen := layerSet{}
	seen.repeats(layers)
	vecs := make([]costVec, n)
	for d := 1; d <= MaxInputDepth && worst <= MaxSchemaCost; d++ {
		prev := cur
		cur = make([]uint64, n)
		for _, i := range order {
			v := g.childVec(i, prev)
			steps += 1 + len(v.keys)
			for _, e := range g.nodes[i].same {
				steps += 1 + v.add(&vecs[e.to])
			}
			vecs[i] = v
			cur[i] = v.max()
		}
		if steps > maxCostSteps {
			return 0, &costError{pointer: "#", reason: "is too complex to bound its validation cost; split it or use fewer nested $ref"}
		}
		layers = append(layers, cur)
		worst = max(worst, cur[0])
		if seen.repeats(layers) {
			break // each layer is a function of the one before: from here they only repeat
		}
	}
	if worst <= MaxSchemaCost {
		return worst, nil
	}
	at, depth := g.blame(layers)
	return worst, &costError{pointer: g.pointer(at), reason: fmt.Sprintf(
		"applies its subschemas (%s) to one value so many times that a value at nesting depth %d could be checked %s times; the limit is %d per value (nesting is capped at %d). Apply each definition once per value: merge the allOf/anyOf/oneOf branches that $ref the same definition, or drop the repeated $ref",
		strings.Join(g.keywords(at), ", "), depth, costText(worst), MaxSchemaCost, MaxInputDepth)}
}

// layerSet remembers the layers seen, by a hash of their costs.
type layerSet map[uint64][]int

// repeats records the last of layers and reports whether an earlier one is equal to it.
func (ls layerSet) repeats(layers [][]uint64) bool {
	last := len(layers) - 1
	var h maphash.Hash
	h.SetSeed(layerSeed)
	for _, c := range layers[last] {
		maphash.WriteComparable(&h, c)
	}
	k := h.Sum64()
	for _, j := range ls[k] {
		if slices.Equal(layers[j], layers[last]) {
			return true
		}
	}
	ls[k] = append(ls[k], last)
	return false
}

var layerSeed = maphash.MakeSeed()

func costText(c uint64) string {
	if c >= satMax {
		return "more than 2^62"
	}
	return strconv.FormatUint(c, 10)
}

// childVec is what node i costs the values one step below its own, given the costs prev
// of every schema at one depth less.
func (g *costGraph) childVec(i int, prev []uint64) costVec {
	nd := &g.nodes[i]
	get := func(j int) uint64 {
		if j < 0 {
			return 0
		}
		return prev[j]
	}
	var v costVec
	for _, j := range nd.itemAlts {
		v.arr = max(v.arr, prev[j])
	}
	for _, j := range nd.itemAll {
		v.arr = satAdd(v.arr, prev[j])
	}
	var common uint64 // every member may get these
	for _, j := range nd.patterns {
		common = satAdd(common, prev[j])
	}
	common = satAdd(common, get(nd.uneval))
	v.obj = satAdd(common, get(nd.additional))
	if len(nd.props) > 0 {
		v.keys, v.owned = make(map[string]uint64, len(nd.props)), true
		for k, j := range nd.props {
			v.keys[k] = satAdd(common, prev[j])
			v.kmax = max(v.kmax, v.keys[k])
		}
	}
	for _, j := range nd.other {
		v.other = satAdd(v.other, prev[j])
	}
	return v
}

// blame finds the schema where the work multiplies at the first depth the root's cost
// goes over the limit: from the root, it follows the one application to the same value that
// alone costs more than the limit, else the first application to a member or item that does,
// and stops at a schema that applies several such to its value, or none (the sum of several
// cheaper ones is over the limit there).
func (g *costGraph) blame(layers [][]uint64) (node, depth int) {
	d := 0
	for d < len(layers) && layers[d][0] <= MaxSchemaCost {
		d++
	}
	if d == len(layers) {
		d = len(layers) - 1
	}
	depth = d
	i := 0
	for range len(g.nodes) * len(layers) {
		nd := &g.nodes[i]
		var big []int
		for _, e := range nd.same {
			if layers[d][e.to] > MaxSchemaCost {
				big = append(big, e.to)
			}
		}
		next, nextD := -1, d
		switch {
		case len(big) > 1:
			return i, depth
		case len(big) == 1:
			next = big[0]
		case d > 0:
			for _, j := range nd.children() {
				if layers[d-1][j] > MaxSchemaCost {
					next, nextD = j, d-1
					break
				}
			}
		}
		if next < 0 {
			return i, depth
		}
		i, d = next, nextD
	}
	return i, depth
}

// children lists the subschemas node applies to the values below its own.
func (nd *costNode) children() []int {
	out := slices.Concat(nd.itemAlts, nd.itemAll, nd.patterns, nd.other)
	for _, k := range slices.Sorted(maps.Keys(nd.props)) {
		out = append(out, nd.props[k])
	}
	for _, j := range []int{nd.additional, nd.uneval} {
		if j >= 0 {
			out = append(out, j)
		}
	}
	return out
}

// keywords names the applications of node i to its own value, at most a few.
func (g *costGraph) keywords(i int) []string {
	var kws []string
	for _, e := range g.nodes[i].same {
		kws = append(kws, e.kw)
	}
	if len(kws) == 0 {
		return []string{"its items or properties"}
	}
	if len(kws) > 4 {
		kws = append(kws[:4], fmt.Sprintf("and %d more", len(kws)-4))
	}
	return kws
}

// pointer is node i's location as a JSON pointer fragment (#/…).
func (g *costGraph) pointer(i int) string {
	loc := g.nodes[i].loc
	if rest, ok := strings.CutPrefix(loc, g.base); ok {
		loc = rest
	}
	if loc == "" {
		return "#"
	}
	return loc
}

// sameOrder orders the nodes so that every node comes after those it applies to the same
// value. It returns a node on a cycle of same-value applications, or -1.
func (g *costGraph) sameOrder() (order []int, cycle int) {
	const (
		unseen = iota
		open
		done
	)
	state := make([]uint8, len(g.nodes))
	order = make([]int, 0, len(g.nodes))
	type frame struct{ node, next int }
	for start := range g.nodes {
		if state[start] != unseen {
			continue
		}
		stack := []frame{{start, 0}}
		state[start] = open
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.next < len(g.nodes[f.node].same) {
				to := g.nodes[f.node].same[f.next].to
				f.next++
				switch state[to] {
				case open:
					return nil, to
				case unseen:
					state[to] = open
					stack = append(stack, frame{to, 0})
				}
				continue
			}
			state[f.node] = done
			order = append(order, f.node)
			stack = stack[:len(stack)-1]
		}
	}
	return order, -1
}

// buildCostGraph indexes every schema reachable from root (root is node 0) and records
// what each applies. A $dynamicRef or $recursiveRef may resolve, at validation, to any
// schema with the same dynamic anchor or a recursive anchor: the graph has an edge to each.
func buildCostGraph(root *jsonschema.Schema) *costGraph {
	g := &costGraph{index: map[*jsonschema.Schema]int{}}
	g.base, _, _ = strings.Cut(root.Location, "#")
	all := []*jsonschema.Schema{root}
	g.index[root] = 0
	for next := 0; next < len(all); next++ { // breadth first: all grows as schemas are found
		for _, sub := range subschemas(all[next]) {
			if _, seen := g.index[sub]; sub != nil && !seen {
				g.index[sub] = len(all)
				all = append(all, sub)
			}
		}
	}
	dynamic := map[string][]*jsonschema.Schema{}
	var recursive []*jsonschema.Schema
	for _, s := range all {
		if s.DynamicAnchor != "" {
			dynamic[s.DynamicAnchor] = append(dynamic[s.DynamicAnchor], s)
		}
		if s.RecursiveAnchor {
			recursive = append(recursive, s)
		}
	}
	g.nodes = make([]costNode, len(all))
	for i, s := range all {
		g.nodes[i] = g.node(s, dynamic, recursive)
	}
	return g
}

func (g *costGraph) node(s *jsonschema.Schema, dynamic map[string][]*jsonschema.Schema, recursive []*jsonschema.Schema) costNode {
	nd := costNode{loc: s.Location, additional: -1, uneval: -1}
	id := func(sub *jsonschema.Schema) int {
		if sub == nil {
			return -1
		}
		return g.index[sub]
	}
	same := func(sub *jsonschema.Schema, kw string) {
		if sub != nil {
			nd.same = append(nd.same, costEdge{g.index[sub], kw})
		}
	}
	same(s.Ref, "$ref")
	if r := s.RecursiveRef; r != nil {
		same(r, "$recursiveRef")
		if r.RecursiveAnchor {
			for _, a := range recursive {
				if a != r {
					same(a, "$recursiveRef")
				}
			}
		}
	}
	if r := s.DynamicRef; r != nil {
		same(r, "$dynamicRef")
		if r.DynamicAnchor != "" {
			for _, a := range dynamic[r.DynamicAnchor] {
				if a != r {
					same(a, "$dynamicRef")
				}
			}
		}
	}
	same(s.Not, "not")
	for i, sub := range s.AllOf {
		same(sub, "allOf/"+strconv.Itoa(i))
	}
	for i, sub := range s.AnyOf {
		same(sub, "anyOf/"+strconv.Itoa(i))
	}
	for i, sub := range s.OneOf {
		same(sub, "oneOf/"+strconv.Itoa(i))
	}
	same(s.If, "if")
	same(s.Then, "then")
	same(s.Else, "else")
	for _, k := range slices.Sorted(maps.Keys(s.DependentSchemas)) {
		same(s.DependentSchemas[k], "dependentSchemas/"+k)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Dependencies)) {
		if sub, ok := s.Dependencies[k].(*jsonschema.Schema); ok {
			same(sub, "dependencies/"+k)
		}
	}
	if len(s.Properties) > 0 {
		nd.props = make(map[string]int, len(s.Properties))
		for k, sub := range s.Properties {
			nd.props[k] = g.index[sub]
		}
	}
	for _, sub := range patternSchemas(s) {
		nd.patterns = append(nd.patterns, g.index[sub])
	}
	if sub, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
		nd.additional = id(sub)
	}
	nd.uneval = id(s.UnevaluatedProperties)
	switch it := s.Items.(type) {
	case *jsonschema.Schema:
		nd.itemAlts = append(nd.itemAlts, g.index[it])
	case []*jsonschema.Schema:
		for _, sub := range it {
			nd.itemAlts = append(nd.itemAlts, g.index[sub])
		}
	}
	if sub, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
		nd.itemAlts = append(nd.itemAlts, g.index[sub])
	}
	for _, sub := range s.PrefixItems {
		nd.itemAlts = append(nd.itemAlts, g.index[sub])
	}
	if s.Items2020 != nil {
		nd.itemAlts = append(nd.itemAlts, g.index[s.Items2020])
	}
	for _, sub := range []*jsonschema.Schema{s.Contains, s.UnevaluatedItems} {
		if sub != nil {
			nd.itemAll = append(nd.itemAll, g.index[sub])
		}
	}
	for _, sub := range []*jsonschema.Schema{s.PropertyNames, s.ContentSchema} {
		if sub != nil {
			nd.other = append(nd.other, g.index[sub])
		}
	}
	return nd
}

// subschemas lists every schema s can apply, in a fixed order.
func subschemas(s *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{s.Ref, s.RecursiveRef, s.DynamicRef, s.Not, s.If, s.Then, s.Else,
		s.PropertyNames, s.UnevaluatedProperties, s.Contains, s.UnevaluatedItems, s.Items2020, s.ContentSchema}
	out = append(out, s.AllOf...)
	out = append(out, s.AnyOf...)
	out = append(out, s.OneOf...)
	out = append(out, s.PrefixItems...)
	for _, k := range slices.Sorted(maps.Keys(s.DependentSchemas)) {
		out = append(out, s.DependentSchemas[k])
	}
	for _, k := range slices.Sorted(maps.Keys(s.Dependencies)) {
		if sub, ok := s.Dependencies[k].(*jsonschema.Schema); ok {
			out = append(out, sub)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
		out = append(out, s.Properties[k])
	}
	out = append(out, patternSchemas(s)...)
	if sub, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
		out = append(out, sub)
	}
	switch it := s.Items.(type) {
	case *jsonschema.Schema:
		out = append(out, it)
	case []*jsonschema.Schema:
		out = append(out, it...)
	}
	if sub, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
		out = append(out, sub)
	}
	return out
}

// patternSchemas lists s's patternProperties subschemas ordered by their patterns.
func patternSchemas(s *jsonschema.Schema) []*jsonschema.Schema {
	res := slices.SortedFunc(maps.Keys(s.PatternProperties), func(a, b *regexp.Regexp) int {
		return strings.Compare(a.String(), b.String())
	})
	out := make([]*jsonschema.Schema, len(res))
	for i, re := range res {
		out[i] = s.PatternProperties[re]
	}
	return out
}
