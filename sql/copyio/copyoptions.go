package copyio

import (
	"strconv"
	"strings"

	"github.com/lakepg/lakepg/sql/planner"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/pgerr"
)

// CopyOptions are COPY's options as written, both the WITH (...) list and
// the legacy keywords (CSV HEADER, BINARY, DELIMITER 'x'), which the
// grammar turns into the same list. Checks and defaults follow
// PostgreSQL's ProcessCopyOptions, with its messages and SQLSTATEs.
type CopyOptions struct {
	isFrom bool
	format CopyFormat

	formatSet, headerSet, freezeSet, encodingSet bool
	delimiter, null, quote, escape               *string
	header, headerMatch                          bool

	forceQuoteAll                                bool
	forceQuote, forceNotNull, forceNull          []string
	forceQuoteSet, forceNotNullSet, forceNullSet bool
	forceQuoteLoc, forceNotNullLoc, forceNullLoc int32
}

func ParseCopyOptions(opts []*pg.Node, isFrom bool) (*CopyOptions, error) {
	o := &CopyOptions{isFrom: isFrom}
	for _, n := range opts {
		d := n.GetDefElem()
		if d == nil {
			continue
		}
		conflict := func() error {
			return planner.ErrAt(pgerr.New(pgerr.SyntaxError, "conflicting or redundant options"), d.Location)
		}
		setString := func(dst **string) error {
			if *dst != nil {
				return conflict()
			}
			v := defString(d)
			*dst = &v
			return nil
		}
		var err error
		switch d.Defname {
		case "format":
			if o.formatSet {
				return nil, conflict()
			}
			o.formatSet = true
			switch f := defString(d); f {
			case "text":
				o.format = CopyText
			case "csv":
				o.format = CopyCSV
			case "binary":
				o.format = CopyBinary
			default:
				return nil, planner.ErrAt(pgerr.New(pgerr.InvalidParameterValue, "COPY format \"%s\" not recognized", f), d.Location)
			}
		case "freeze":
			if o.freezeSet {
				return nil, conflict()
			}
			o.freezeSet = true
			if _, err := defBool(d); err != nil {
				return nil, err
			}
		case "delimiter":
			err = setString(&o.delimiter)
		case "null":
			err = setString(&o.null)
		case "quote":
			err = setString(&o.quote)
		case "escape":
			err = setString(&o.escape)
		case "header":
			if o.headerSet {
				return nil, conflict()
			}
			o.headerSet = true
			if o.header, o.headerMatch, err = defHeader(d, isFrom); err != nil {
				return nil, err
			}
		case "force_quote":
			if o.forceQuoteSet {
				return nil, conflict()
			}
			o.forceQuoteSet, o.forceQuoteLoc = true, d.Location
			if d.Arg.GetAStar() != nil {
				o.forceQuoteAll = true
			} else if o.forceQuote, err = defNameList(d); err != nil {
				return nil, err
			}
		case "force_not_null":
			if o.forceNotNullSet {
				return nil, conflict()
			}
			o.forceNotNullSet, o.forceNotNullLoc = true, d.Location
			if o.forceNotNull, err = defNameList(d); err != nil {
				return nil, err
			}
		case "force_null":
			if o.forceNullSet {
				return nil, conflict()
			}
			o.forceNullSet, o.forceNullLoc = true, d.Location
			if o.forceNull, err = defNameList(d); err != nil {
				return nil, err
			}
		case "encoding":
			if o.encodingSet {
				return nil, conflict()
			}
			o.encodingSet = true
			switch strings.ToUpper(strings.ReplaceAll(defString(d), "-", "")) {
			case "UTF8", "UNICODE", "SQL_ASCII":
			default:
				return nil, planner.ErrAt(pgerr.New(pgerr.FeatureNotSupported, "COPY encoding \"%s\" is not supported: lakepg reads and writes UTF8 only", defString(d)), d.Location)
			}
		default:
			return nil, planner.ErrAt(pgerr.New(pgerr.SyntaxError, "option \"%s\" not recognized", d.Defname), d.Location)
		}
		if err != nil {
			return nil, err
		}
	}
	return o, o.Check()
}

// defString is PostgreSQL's defGetString for the argument kinds COPY meets.
func defString(d *pg.DefElem) string {
	if d.Arg == nil {
		return ""
	}
	switch a := d.Arg.Node.(type) {
	case *pg.Node_String_:
		return a.String_.Sval
	case *pg.Node_Integer:
		return strconv.Itoa(int(a.Integer.Ival))
	case *pg.Node_Float:
		return a.Float.Fval
	case *pg.Node_Boolean:
		if a.Boolean.Boolval {
			return "true"
		}
		return "false"
	case *pg.Node_TypeName:
		var parts []string
		for _, n := range a.TypeName.Names {
			parts = append(parts, n.GetString_().GetSval())
		}
		return strings.Join(parts, ".")
	}
	return ""
}

// defBool is PostgreSQL's defGetBoolean.
func defBool(d *pg.DefElem) (bool, error) {
	if d.Arg == nil {
		return true, nil
	}
	if i := d.Arg.GetInteger(); i != nil {
		switch i.Ival {
		case 0:
			return false, nil
		case 1:
			return true, nil
		}
	} else {
		switch strings.ToLower(defString(d)) {
		case "true", "on":
			return true, nil
		case "false", "off":
			return false, nil
		}
	}
	return false, planner.ErrAt(pgerr.New(pgerr.SyntaxError, "%s requires a Boolean value", d.Defname), d.Location)
}

// defHeader is PostgreSQL's defGetCopyHeaderChoice: a Boolean or "match".
func defHeader(d *pg.DefElem, isFrom bool) (header, match bool, err error) {
	if d.Arg != nil && d.Arg.GetInteger() == nil && strings.EqualFold(defString(d), "match") {
		if !isFrom {
			return false, false, planner.ErrAt(pgerr.New(pgerr.FeatureNotSupported, "cannot use \"%s\" with HEADER in COPY TO", defString(d)), d.Location)
		}
		return true, true, nil
	}
	b, err := defBool(d)
	if err != nil {
		return false, false, planner.ErrAt(pgerr.New(pgerr.SyntaxError, "%s requires a Boolean value or \"match\"", d.Defname), d.Location)
	}
	return b, false, nil
}

func defNameList(d *pg.DefElem) ([]string, error) {
	l := d.Arg.GetList()
	if l == nil {
		return nil, planner.ErrAt(pgerr.New(pgerr.SyntaxError, "argument to option \"%s\" must be a list of column names", d.Defname), d.Location)
	}
	var names []string
	for _, n := range l.Items {
		names = append(names, n.GetString_().GetSval())
	}
	return names, nil
}

// Check applies ProcessCopyOptions' rules and defaults.
func (o *CopyOptions) Check() error {
	csv, bin := o.format == CopyCSV, o.format == CopyBinary
	syntax := func(msg string) error { return pgerr.New(pgerr.SyntaxError, "%s", msg) }
	unsupported := func(msg string) error { return pgerr.New(pgerr.FeatureNotSupported, "%s", msg) }
	invalid := func(format string, args ...any) error { return pgerr.New(pgerr.InvalidParameterValue, format, args...) }
	if bin && o.delimiter != nil {
		return syntax("cannot specify DELIMITER in BINARY mode")
	}
	if bin && o.null != nil {
		return syntax("cannot specify NULL in BINARY mode")
	}
	if o.delimiter == nil {
		d := "\t"
		if csv {
			d = ","
		}
		o.delimiter = &d
	}
	if o.null == nil {
		n := `\N`
		if csv {
			n = ""
		}
		o.null = &n
	}
	if csv {
		if o.quote == nil {
			q := `"`
			o.quote = &q
		}
		if o.escape == nil {
			e := *o.quote
			o.escape = &e
		}
	}
	delim, null := *o.delimiter, *o.null
	if len(delim) != 1 {
		return unsupported("COPY delimiter must be a single one-byte character")
	}
	if delim[0] == '\n' || delim[0] == '\r' {
		return invalid("COPY delimiter cannot be newline or carriage return")
	}
	if strings.ContainsAny(null, "\r\n") {
		return invalid("COPY null representation cannot use newline or carriage return")
	}
	if !csv && strings.IndexByte(`\.abcdefghijklmnopqrstuvwxyz0123456789`, delim[0]) >= 0 {
		return invalid("COPY delimiter cannot be \"%s\"", delim)
	}
	if bin && o.header {
		return syntax("cannot specify HEADER in BINARY mode")
	}
	if !csv && o.quote != nil {
		return unsupported("COPY quote available only in CSV mode")
	}
	if csv && len(*o.quote) != 1 {
		return unsupported("COPY quote must be a single one-byte character")
	}
	if csv && delim[0] == (*o.quote)[0] {
		return invalid("COPY delimiter and quote must be different")
	}
	if !csv && o.escape != nil {
		return unsupported("COPY escape available only in CSV mode")
	}
	if csv && len(*o.escape) != 1 {
		return unsupported("COPY escape must be a single one-byte character")
	}
	if !csv && o.forceQuoteSet {
		return unsupported("COPY force quote available only in CSV mode")
	}
	if o.forceQuoteSet && o.isFrom {
		return unsupported("COPY force quote only available using COPY TO")
	}
	if !csv && o.forceNotNullSet {
		return unsupported("COPY force not null available only in CSV mode")
	}
	if o.forceNotNullSet && !o.isFrom {
		return unsupported("COPY force not null only available using COPY FROM")
	}
	if !csv && o.forceNullSet {
		return unsupported("COPY force null available only in CSV mode")
	}
	if o.forceNullSet && !o.isFrom {
		return unsupported("COPY force null only available using COPY FROM")
	}
	if strings.Contains(null, delim) {
		return invalid("COPY delimiter must not appear in the NULL specification")
	}
	if csv && strings.Contains(null, *o.quote) {
		return invalid("CSV quote character must not appear in the NULL specification")
	}
	return nil
}

// Spec builds the wire description of a COPY of cols.
func (o *CopyOptions) Spec(in bool, relation string, cols []planner.Column) (*CopySpec, error) {
	s := &CopySpec{In: in, Format: o.format, Header: o.header, HeaderMatch: o.headerMatch, Relation: relation, Columns: cols}
	if o.format != CopyBinary {
		s.Delimiter, s.Null = (*o.delimiter)[0], *o.null
	}
	if o.format == CopyCSV {
		s.Quote, s.Escape = (*o.quote)[0], (*o.escape)[0]
	}
	var err error
	if o.forceQuoteAll {
		s.ForceQuote = make([]bool, len(cols))
		for i := range s.ForceQuote {
			s.ForceQuote[i] = true
		}
	} else if s.ForceQuote, err = forceFlags(o.forceQuote, cols, "FORCE_QUOTE", o.forceQuoteLoc); err != nil {
		return nil, err
	}
	if s.ForceNotNull, err = forceFlags(o.forceNotNull, cols, "FORCE_NOT_NULL", o.forceNotNullLoc); err != nil {
		return nil, err
	}
	if s.ForceNull, err = forceFlags(o.forceNull, cols, "FORCE_NULL", o.forceNullLoc); err != nil {
		return nil, err
	}
	return s, nil
}

// forceFlags marks the named columns, which must be among those copied.
func forceFlags(names []string, cols []planner.Column, option string, loc int32) ([]bool, error) {
	if len(names) == 0 {
		return nil, nil
	}
	flags := make([]bool, len(cols))
	for _, name := range names {
		found := false
		for i, c := range cols {
			if c.Name == name {
				flags[i], found = true, true
			}
		}
		if !found {
			return nil, pgerr.New(pgerr.InvalidColumnReference, "%s column \"%s\" not referenced by COPY", option, name)
		}
	}
	return flags, nil
}
