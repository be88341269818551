package sql

import (
	"maps"
	"strings"
)

// Settings are transactional, as in PostgreSQL: what SET, RESET, SET ROLE,
// SET SESSION AUTHORIZATION and set_config() change inside a transaction
// block is undone when the block rolls back (or back to a savepoint taken
// before the change), and SET LOCAL lasts until the block ends either way.
// Outside a block SET LOCAL only warns, as there.

// settingsMark is the session's settings as a block or savepoint found
// them, with the SET LOCALs in force then.
type settingsMark struct {
	values map[string]string
	role   string
	user   string
	locals map[string]string
}

// blockSettings is what the open block restores; nil outside a block.
type blockSettings struct {
	start *settingsMark
	// locals are the settings SET LOCAL changed, with the value each goes
	// back to when the block ends
	locals map[string]string
}

func (s *Session) markSettings() *settingsMark {
	m := &settingsMark{values: maps.Clone(s.Settings), role: s.Role(), user: s.User}
	if s.blockSet != nil {
		m.locals = maps.Clone(s.blockSet.locals)
	}
	return m
}

// beginSettings starts tracking the settings of a new block.
func (s *Session) beginSettings() {
	if s.blockSet == nil {
		s.blockSet = &blockSettings{start: s.markSettings(), locals: map[string]string{}}
	}
}

// noteSet records, before name changes, whether the change is local to
// the block; false means SET LOCAL outside a block, which changes nothing.
func (s *Session) noteSet(name string, local bool) bool {
	if s.blockSet == nil {
		if local {
			s.Raise(Notice{Severity: "WARNING", Code: codeNoActiveTx, Message: "SET LOCAL can only be used in transaction blocks"})
		}
		return !local
	}
	if !local {
		delete(s.blockSet.locals, name) // the session value now, once committed
		return true
	}
	if _, ok := s.blockSet.locals[name]; !ok {
		s.blockSet.locals[name] = s.settingValue(name)
	}
	return true
}

// settingValue is a setting's value, role and session_authorization
// included.
func (s *Session) settingValue(name string) string {
	switch name {
	case "role":
		return s.Role()
	case "session_authorization":
		return s.User
	}
	return s.Settings[name]
}

// putSetting gives name a value saved earlier, bypassing the checks SET
// makes (the value passed them when it was set).
func (s *Session) putSetting(name, val string) {
	switch name {
	case "role":
		s.PutRole(val)
		s.ResetPrivCache()
		return
	case "session_authorization":
		s.User = val
		s.PutRole("")
		s.ResetPrivCache()
		return
	}
	if s.Settings[name] == val {
		return
	}
	if err := s.assign(name, val); err != nil {
		s.Settings[name] = val
	}
}

// restoreSettings puts the settings back as m found them.
func (s *Session) restoreSettings(m *settingsMark) {
	for k, v := range m.values {
		s.putSetting(k, v)
	}
	for k := range s.Settings {
		if _, ok := m.values[k]; !ok {
			if strings.Contains(k, ".") {
				s.Settings[k] = "" // a placeholder first set after m stays, empty, as in PostgreSQL
			} else {
				delete(s.Settings, k)
			}
		}
	}
	if s.User != m.user {
		s.putSetting("session_authorization", m.user)
	}
	if s.Role() != m.role {
		s.putSetting("role", m.role)
	}
	if s.blockSet != nil {
		s.blockSet.locals = maps.Clone(m.locals)
		if s.blockSet.locals == nil {
			s.blockSet.locals = map[string]string{}
		}
	}
}

// endSettings ends the block's settings: a rollback restores them all, a
// commit only those SET LOCAL changed.
func (s *Session) endSettings(commit bool) {
	b := s.blockSet
	if b == nil {
		return
	}
	if !commit {
		s.restoreSettings(b.start)
	} else {
		for name, v := range b.locals {
			s.putSetting(name, v)
		}
	}
	s.blockSet = nil
}

// SetConfig is set_config(name, val, local): it sets the value as SET
// (LOCAL) does and answers the value shown.
func (s *Session) SetConfig(name, val string, local bool) (string, error) {
	// workers of a parallel plan may evaluate it at the same time
	s.SettingsMu.Lock()
	defer s.SettingsMu.Unlock()
	if local && s.blockSet == nil {
		// outside a block PostgreSQL's change lasts for the statement's
		// own implicit transaction: it answers the value and keeps none
		return canonicalSetting(name, val)
	}
	s.noteSet(name, local)
	if err := s.assign(name, val); err != nil {
		return "", err
	}
	shown := s.Settings[name]
	if c, err := canonicalSetting(name, shown); err == nil {
		shown = c
	}
	return shown, nil
}
