package main

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/lakepg/lakepg/sql"
)

// watchAdmission exports the admission queue (sql.Admission): statements
// computing and statements waiting for their turn, read at scrape time.
func (o *observer) watchAdmission(a *sql.Admission) {
	if o == nil || a == nil {
		return
	}
	o.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "lakepg_active_queries", Help: "Statements computing on lake data now (at most --max-active-queries).",
		}, func() float64 { return float64(a.Running()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "lakepg_queued_queries", Help: "Statements waiting for a turn to compute (--max-active-queries reached).",
		}, func() float64 { return float64(a.Waiting()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "lakepg_max_active_queries", Help: "The --max-active-queries limit (0: none).",
		}, func() float64 { return float64(a.Limit()) }),
	)
}
