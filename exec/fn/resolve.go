package fn

import (
	"strings"

	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Overload resolution follows PostgreSQL's func_get_detail /
// func_select_candidate (parse_func.c) and oper_select_candidate
// (parse_oper.c), over lakepg's types and these implicit casts (pg_cast with
// castcontext 'i'):
//
//	int2 → int4 → int8 → numeric → float4 → float8 (and every skip along it)
//	date → timestamp → timestamptz, date → timestamptz
//	unknown → anything; anything → "any"
//
// Types compare by ID: numeric(p,s) is numeric, varchar is text.

// ErrNoFunction and friends are built per call; these are their SQLSTATEs.
const (
	codeUndefined = pgerr.UndefinedFunction // 42883
	codeAmbiguous = "42725"
)

func canImplicit(from, to types.T) bool {
	if from.ID == to.ID || from.ID == types.Unknown || to.ID == anyID {
		return true
	}
	if to.ID == anyNonTextID {
		return !isPseudo(from)
	}
	switch from.ID {
	case types.Int16:
		return to.ID == types.Int32 || to.ID == types.Int64 || to.ID == types.Numeric || to.IsFloat()
	case types.Int32:
		return to.ID == types.Int64 || to.ID == types.Numeric || to.IsFloat()
	case types.Int64:
		return to.ID == types.Numeric || to.IsFloat()
	case types.Numeric:
		return to.IsFloat()
	case types.Float32:
		return to.ID == types.Float64
	case types.Date:
		return to.ID == types.Timestamp || to.ID == types.Timestamptz
	case types.Timestamp:
		return to.ID == types.Timestamptz
	}
	return false
}

func category(t types.T) byte {
	if isPseudo(t) {
		return 'P'
	}
	return t.Category()
}

func preferred(t types.T) bool { return !isPseudo(t) && t.Preferred() }

// expand returns the overload's parameter list for nargs arguments, or nil
// when the count does not fit.
func expand(o *Overload, nargs int) []types.T {
	if !o.Variadic {
		if len(o.Args) != nargs {
			return nil
		}
		if o.Args == nil {
			return []types.T{}
		}
		return o.Args
	}
	if nargs < len(o.Args) {
		return nil
	}
	ps := make([]types.T, nargs)
	copy(ps, o.Args)
	last := o.Args[len(o.Args)-1]
	for i := len(o.Args); i < nargs; i++ {
		ps[i] = last
	}
	return ps
}

type candidate struct {
	o      *Overload
	params []types.T
}

// selectCandidate picks the best overload for args; nil with ambiguous=true
// when several remain, nil with ambiguous=false when none fits.
func selectCandidate(list []*Overload, args []types.T) (c *candidate, ambiguous bool) {
	var cands []candidate
	for _, o := range list {
		ps := expand(o, len(args))
		if ps == nil {
			continue
		}
		// an exact match wins outright
		exact := true
		for i, a := range args {
			if a.ID != ps[i].ID {
				exact = false
				break
			}
		}
		if exact {
			return &candidate{o, ps}, false
		}
		ok := true
		for i, a := range args {
			if !canImplicit(a, ps[i]) {
				ok = false
				break
			}
		}
		if ok {
			cands = append(cands, candidate{o, ps})
		}
	}
	switch len(cands) {
	case 0:
		return nil, false
	case 1:
		return &cands[0], false
	}
	nunknown := 0
	for _, a := range args {
		if a.ID == types.Unknown {
			nunknown++
		}
	}
	// keep the candidates with the most exact matches on known arguments
	cands = keepBest(cands, func(ps []types.T) int {
		n := 0
		for i, a := range args {
			if a.ID != types.Unknown && ps[i].ID == a.ID {
				n++
			}
		}
		return n
	})
	if len(cands) == 1 {
		return &cands[0], false
	}
	// then those taking preferred types (of the argument's own category)
	// where a conversion is needed
	cands = keepBest(cands, func(ps []types.T) int {
		n := 0
		for i, a := range args {
			if a.ID == types.Unknown {
				continue
			}
			if ps[i].ID == a.ID || (preferred(ps[i]) && category(ps[i]) == category(a)) {
				n++
			}
		}
		return n
	})
	if len(cands) == 1 {
		return &cands[0], false
	}
	if nunknown == 0 {
		return nil, true
	}
	// decide a category for each unknown argument: string if any candidate
	// takes one there, else the one all candidates agree on
	resolved := true
	slotCat := make([]byte, len(args))
	slotPref := make([]bool, len(args))
	for i, a := range args {
		if a.ID != types.Unknown {
			continue
		}
		conflict := false
		for k, c := range cands {
			cat, pref := category(c.params[i]), preferred(c.params[i])
			switch {
			case k == 0:
				slotCat[i], slotPref[i] = cat, pref
			case cat == slotCat[i]:
				slotPref[i] = slotPref[i] || pref
			case cat == 'S':
				slotCat[i], slotPref[i] = cat, pref
			default:
				conflict = true
			}
		}
		if conflict && slotCat[i] != 'S' {
			resolved = false
			break
		}
	}
	if resolved {
		var kept []candidate
		for _, c := range cands {
			keep := true
			for i, a := range args {
				if a.ID != types.Unknown {
					continue
				}
				if category(c.params[i]) != slotCat[i] || (slotPref[i] && !preferred(c.params[i])) {
					keep = false
					break
				}
			}
			if keep {
				kept = append(kept, c)
			}
		}
		if len(kept) > 0 {
			cands = kept
		}
		if len(cands) == 1 {
			return &cands[0], false
		}
	}
	// last gasp: if all known arguments share one type, assume the unknown
	// ones have it too
	if nunknown < len(args) {
		var known types.T
		same := true
		found := false
		for _, a := range args {
			if a.ID == types.Unknown {
				continue
			}
			if !found {
				known, found = a, true
			} else if a.ID != known.ID {
				same = false
			}
		}
		if same {
			var hit *candidate
			n := 0
			for k := range cands {
				ok := true
				for i := range args {
					if !canImplicit(known, cands[k].params[i]) {
						ok = false
						break
					}
				}
				if ok {
					n++
					hit = &cands[k]
				}
			}
			if n == 1 {
				return hit, false
			}
		}
	}
	return nil, true
}

func keepBest(cs []candidate, score func([]types.T) int) []candidate {
	best := -1
	var out []candidate
	for _, c := range cs {
		s := score(c.params)
		switch {
		case s > best:
			best = s
			out = append(out[:0], c)
		case s == best:
			out = append(out, c)
		}
	}
	return out
}

// castTargets turns the chosen parameter list into the concrete types the
// arguments must be cast to: an argument already of the parameter's family
// keeps its modifiers; an unknown literal takes the parameter's canonical
// type; "any" keeps the argument's type.
func castTargets(args, params []types.T) []types.T {
	out := make([]types.T, len(args))
	for i, a := range args {
		p := params[i]
		switch {
		case p.ID == anyID:
			if a.ID == types.Unknown {
				out[i] = types.TextT
			} else {
				out[i] = a
			}
		case p.ID == anyNonTextID:
			out[i] = types.TextT
		case a.Bpchar && p.ID == types.Text && !p.Bpchar:
			// character(n) reaches text functions and operators through
			// PostgreSQL's bpchar-to-text cast, which drops trailing blanks
			out[i] = p
		case a.ID == p.ID:
			out[i] = a
		case p.ID == types.Numeric:
			switch a.ID {
			case types.Int16, types.Int32:
				out[i] = types.T{ID: types.Numeric, Scale: 0}
			default:
				// int8 may need 19 digits, and an unknown literal's scale is
				// not known: both become dynamic numerics
				out[i] = types.NumericAnyT
			}
		default:
			out[i] = p
		}
	}
	return out
}

// TypeName is a type as PostgreSQL's format_type_be names it in messages:
// without modifiers.
func TypeName(t types.T) string {
	switch {
	case t.ID == types.Numeric:
		return "numeric"
	case t.ID == types.Text && t.Varchar:
		return "character varying"
	case t.ID == anyID:
		return "\"any\""
	case t.ID == anyNonTextID:
		return "anynonarray"
	}
	return t.String()
}

func argList(args []types.T) string {
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = TypeName(a)
	}
	return strings.Join(names, ", ")
}

// Resolve picks the overload of function name for argument types args as
// PostgreSQL does. It returns the overload, the type each argument must be
// cast to, and the result type. No fitting overload is 42883 "function
// name(argtypes) does not exist", several equally good ones 42725.
// greatest and least resolve their arguments to a common type (42804 when
// there is none) and ignore NULLs.
func Resolve(name string, args []types.T) (*Overload, []types.T, types.T, error) {
	if name == "greatest" || name == "least" {
		return resolveMinMax(name, args)
	}
	c, amb := selectCandidate(funcs[name], args)
	if c == nil {
		sig := name + "(" + argList(args) + ")"
		if amb {
			e := pgerr.New(codeAmbiguous, "function %s is not unique", sig)
			e.Hint = "Could not choose a best candidate function. You might need to add explicit type casts."
			return nil, nil, types.T{}, e
		}
		e := pgerr.New(codeUndefined, "function %s does not exist", sig)
		e.Hint = "No function matches the given name and argument types. You might need to add explicit type casts."
		return nil, nil, types.T{}, e
	}
	casts := castTargets(args, c.params)
	return c.o, casts, c.o.Ret(casts), nil
}

// ResolveOperator resolves a binary operator fn implements (see
// OperatorExists) as PostgreSQL's oper_select_candidate does, first trying
// an unknown operand as the other operand's type. Errors are 42883 "operator
// does not exist: l op r" and 42725 "operator is not unique: l op r".
func ResolveOperator(op string, l, r types.T) (*Overload, []types.T, types.T, error) {
	list := binOps[op]
	args := []types.T{l, r}
	// binary_oper_exact: an unknown side is tried as the other side's type
	if (l.ID == types.Unknown) != (r.ID == types.Unknown) {
		known := l
		if l.ID == types.Unknown {
			known = r
		}
		for _, o := range list {
			if o.Args[0].ID == known.ID && o.Args[1].ID == known.ID {
				ps := []types.T{known, known}
				casts := castTargets([]types.T{known, known}, ps)
				return o, casts, o.Ret(casts), nil
			}
		}
	}
	c, amb := selectCandidate(list, args)
	if c == nil {
		sig := TypeName(l) + " " + op + " " + TypeName(r)
		if amb {
			e := pgerr.New(codeAmbiguous, "operator is not unique: %s", sig)
			e.Hint = "Could not choose a best candidate operator. You might need to add explicit type casts."
			return nil, nil, types.T{}, e
		}
		e := pgerr.New(codeUndefined, "operator does not exist: %s", sig)
		e.Hint = "No operator matches the given name and argument types. You might need to add explicit type casts."
		return nil, nil, types.T{}, e
	}
	casts := castTargets(args, c.params)
	return c.o, casts, c.o.Ret(casts), nil
}

// ResolvePrefix resolves a prefix operator fn implements: - on interval
// (numbers are the binder's), |/ (square root), ||/ (cube root), @ (abs).
func ResolvePrefix(op string, arg types.T) (*Overload, []types.T, types.T, error) {
	c, amb := selectCandidate(prefixes[op], []types.T{arg})
	if c == nil {
		sig := op + " " + TypeName(arg)
		if amb {
			e := pgerr.New(codeAmbiguous, "operator is not unique: %s", sig)
			e.Hint = "Could not choose a best candidate operator. You might need to add explicit type casts."
			return nil, nil, types.T{}, e
		}
		e := pgerr.New(codeUndefined, "operator does not exist: %s", sig)
		e.Hint = "No operator matches the given name and argument type. You might need to add an explicit type cast."
		return nil, nil, types.T{}, e
	}
	casts := castTargets([]types.T{arg}, c.params)
	return c.o, casts, c.o.Ret(casts), nil
}

// CommonType is PostgreSQL's select_common_type for UNION, CASE, COALESCE,
// GREATEST and friends: all-unknown is text; otherwise every known type must
// share one category, and the result moves to a type the current one casts
// to implicitly (but not back), never away from a preferred type. Numeric
// results take the largest scale seen (dynamic if any input is). ctx names
// the construct in the 42804 error ("CASE", "COALESCE", "GREATEST", …).
func CommonType(ts []types.T, ctx string) (types.T, error) {
	var p types.T
	found := false
	for _, t := range ts {
		if t.ID == types.Unknown {
			continue
		}
		if !found {
			p, found = t, true
			continue
		}
		if t.ID == p.ID {
			continue
		}
		if category(t) != category(p) {
			return types.T{}, pgerr.New(pgerr.DatatypeMismatch, "%s types %s and %s cannot be matched", ctx, TypeName(p), TypeName(t))
		}
		if !preferred(p) && canImplicit(p, t) && !canImplicit(t, p) {
			p = t
		}
	}
	if !found {
		return types.TextT, nil
	}
	if p.ID == types.Numeric {
		scale, dyn := 0, false
		for _, t := range ts {
			if t.ID == types.Numeric {
				if t.Scale < 0 {
					dyn = true
				}
				scale = max(scale, t.Scale)
			} else if t.ID == types.Int64 {
				dyn = true // may need 19 digits
			}
		}
		if dyn || scale > types.MaxInt64Precision {
			return types.NumericAnyT, nil
		}
		same := true
		for _, t := range ts {
			if t.ID != types.Unknown && t != p {
				same = false
			}
		}
		if same {
			return p, nil
		}
		// PostgreSQL's result is unconstrained numeric: each value keeps its
		// own scale (greatest(1.5, 2) prints 2, not 2.0)
		return types.NumericAnyT, nil
	}
	if p.ID == types.Text {
		for _, t := range ts {
			if t.ID != types.Unknown && t != p {
				return types.TextT, nil
			}
		}
	}
	return p, nil
}
