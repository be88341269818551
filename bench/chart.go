package bench

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// series is one named row of values of a chart; NaN (or ≤ 0 on a log axis) is a gap.
type series struct {
	name   string
	values []float64
}

// bars draws grouped bars from the bottom of the Y axis, which a log axis needs (gonum's
// BarChart starts bars at 0, which a log scale cannot place).
type bars struct {
	ss    []series
	width vg.Length
}

func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	n := len(b.ss)
	for si, s := range b.ss {
		col := plotutil.Color(si)
		for i, v := range s.values {
			if math.IsNaN(v) || math.IsInf(v, 0) || (isLog(p.Y) && v <= 0) {
				continue
			}
			x := trX(float64(i)) + b.width*vg.Length(float64(si)-float64(n-1)/2)
			y0, y1 := trY(p.Y.Min), trY(math.Min(v, p.Y.Max))
			pts := []vg.Point{{X: x - b.width/2, Y: y0}, {X: x - b.width/2, Y: y1}, {X: x + b.width/2, Y: y1}, {X: x + b.width/2, Y: y0}}
			c.FillPolygon(col, c.ClipPolygonY(pts))
		}
	}
}

func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	ymin, ymax = math.Inf(1), math.Inf(-1)
	n := 0
	for _, s := range b.ss {
		n = max(n, len(s.values))
		for _, v := range s.values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			ymin, ymax = math.Min(ymin, v), math.Max(ymax, v)
		}
	}
	if math.IsInf(ymin, 1) {
		ymin, ymax = 0, 1
	}
	return -0.5, float64(n) - 0.5, ymin, ymax
}

func isLog(a plot.Axis) bool {
	_, ok := a.Scale.(plot.LogScale)
	return ok
}

// swatch is a legend entry's colored square.
type swatch struct{ col color.Color }

func (s swatch) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y}}
	c.FillPolygon(s.col, c.ClipPolygonY(pts))
}

// barChart writes a grouped bar chart of categories × series as a PNG.
func barChart(path, title, ylabel string, cats []string, ss []series, logY bool) error {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	b := &bars{ss: ss}
	groupWidth := vg.Points(360 / math.Max(1, float64(len(cats))) * 0.8 * 2)
	b.width = min(groupWidth/vg.Length(max(1, len(ss))), vg.Points(40))
	p.Add(b, plotter.NewGrid())
	_, _, ymin, ymax := b.DataRange()
	if logY {
		lo := math.Inf(1)
		for _, s := range ss {
			for _, v := range s.values {
				if v > 0 && !math.IsInf(v, 0) {
					lo = math.Min(lo, v)
				}
			}
		}
		if math.IsInf(lo, 1) {
			lo = 1
		}
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		p.Y.Min = math.Pow(10, math.Floor(math.Log10(lo)))
		p.Y.Max = math.Pow(10, math.Ceil(math.Log10(math.Max(ymax, lo*10))))
	} else {
		p.Y.Min = math.Min(0, ymin)
		p.Y.Max = ymax * 1.08
		if p.Y.Max <= p.Y.Min {
			p.Y.Max = p.Y.Min + 1
		}
	}
	p.NominalX(cats...)
	if len(ss) > 1 {
		for i, s := range ss {
			p.Legend.Add(s.name, swatch{plotutil.Color(i)})
		}
		p.Legend.Top = true
	}
	w := vg.Length(math.Max(480, float64(len(cats)*len(ss))*14+120))
	return save(p, w, 320, path)
}

// xySeries is one named line of a line chart.
type xySeries struct {
	name string
	xys  plotter.XYs
}

// lineChart writes lines with points as a PNG.
func lineChart(path, title, xlabel, ylabel string, ss []xySeries, logX, logY bool) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	for i, s := range ss {
		if len(s.xys) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(s.xys)
		if err != nil {
			return fmt.Errorf("chart %s: %w", title, err)
		}
		l.Color = plotutil.Color(i)
		pts.Color = plotutil.Color(i)
		pts.Shape = plotutil.Shape(i)
		p.Add(l, pts)
		p.Legend.Add(s.name, l, pts)
	}
	if !logY {
		p.Y.Min = math.Min(0, p.Y.Min)
	}
	if logX && p.X.Min > 0 {
		// Room around the outermost points, so their decade labels show.
		p.X.Min, p.X.Max = p.X.Min/1.5, p.X.Max*1.5
	}
	p.Legend.Top = true
	p.Legend.Left = true
	return save(p, 480, 320, path)
}

func save(p *plot.Plot, w, h vg.Length, path string) error {
	if err := p.Save(w, h, path); err != nil {
		return fmt.Errorf("writing chart %s: %w", path, err)
	}
	return nil
}
