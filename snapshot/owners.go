package snapshot

// NewObjects lists the provisional ids of the schemas, tables and views the
// commit creates and does not drop again, so that the statement creating
// them can record their owner (an Extra, with the final ids).
func (c *Commit) NewObjects() (schemas, tables, views []int64) {
	for _, s := range c.newSchemas {
		if !s.dropped {
			schemas = append(schemas, s.provID)
		}
	}
	for _, t := range c.newTables {
		if !t.dropped {
			tables = append(tables, t.provID)
		}
	}
	for _, v := range c.newViews {
		if !v.dropped {
			views = append(views, v.provID)
		}
	}
	return schemas, tables, views
}
