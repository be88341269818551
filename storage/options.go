package storage

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Options configure the object-storage backend and the read caches. The
// zero value is valid: AWS defaults (region, endpoint, credentials from the
// standard chain), a default-sized memory cache and no disk cache.
type Options struct {
	// S3Endpoint is the base URL of an S3-compatible server
	// (http://127.0.0.1:7070); empty means AWS itself. Without a scheme,
	// https is assumed.
	S3Endpoint string
	// S3Region is the signing region; empty falls back to AWS_REGION, the
	// shared config files, then us-east-1.
	S3Region string
	// S3PathStyle addresses buckets as endpoint/bucket/key instead of
	// bucket.endpoint/key, which most self-hosted servers need.
	S3PathStyle bool
	// MemoryCacheSize bounds the in-memory cache of Parquet footers and
	// recently read ranges of objects in S3, in bytes; 0 means the default,
	// negative disables it.
	MemoryCacheSize int64
	// CacheDir, when set, keeps ranges read from S3 in files under this
	// directory, up to CacheSize bytes (0 means the default).
	CacheDir  string
	CacheSize int64

	envErr error // a malformed environment variable, reported by ForDataPath
}

const (
	defaultMemoryCache = 256 << 20
	defaultDiskCache   = 4 << 30
)

// OptionsFromEnv reads the options from the LAKEPG_S3_* and LAKEPG_CACHE_*
// environment variables (see RegisterFlags for the names).
func OptionsFromEnv() Options {
	var o Options
	o.fromEnv()
	return o
}

func (o *Options) fromEnv() {
	var errs []error
	o.S3Endpoint = os.Getenv("LAKEPG_S3_ENDPOINT")
	o.S3Region = os.Getenv("LAKEPG_S3_REGION")
	if v := os.Getenv("LAKEPG_S3_PATH_STYLE"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("LAKEPG_S3_PATH_STYLE=%q: want true or false", v))
		}
		o.S3PathStyle = b
	}
	o.CacheDir = os.Getenv("LAKEPG_CACHE_DIR")
	for _, s := range []struct {
		env string
		dst *int64
	}{{"LAKEPG_CACHE_SIZE", &o.CacheSize}, {"LAKEPG_CACHE_MEMORY", &o.MemoryCacheSize}} {
		if v := os.Getenv(s.env); v != "" {
			n, err := ParseSize(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", s.env, err))
			}
			*s.dst = n
		}
	}
	o.envErr = errors.Join(errs...)
}

// RegisterFlags adds the storage flags to fs, with defaults from the
// environment, and returns the options they fill in once fs is parsed:
//
//	--s3-endpoint   LAKEPG_S3_ENDPOINT    S3-compatible endpoint URL
//	--s3-region     LAKEPG_S3_REGION      signing region
//	--s3-path-style LAKEPG_S3_PATH_STYLE  path-style bucket addressing
//	--cache-dir     LAKEPG_CACHE_DIR      local disk cache of S3 reads
//	--cache-size    LAKEPG_CACHE_SIZE     disk cache limit (e.g. 10GiB)
//	--cache-memory  LAKEPG_CACHE_MEMORY   memory cache limit (e.g. 256MiB)
//
// Credentials are not flags: the standard AWS chain (AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY, AWS_PROFILE and the shared files, instance roles).
func RegisterFlags(fs *flag.FlagSet) *Options {
	o := &Options{}
	o.fromEnv()
	fs.StringVar(&o.S3Endpoint, "s3-endpoint", o.S3Endpoint, "S3-compatible endpoint URL, e.g. http://127.0.0.1:7070; empty for AWS (env LAKEPG_S3_ENDPOINT)")
	fs.StringVar(&o.S3Region, "s3-region", o.S3Region, "S3 region (env LAKEPG_S3_REGION; default AWS_REGION or us-east-1)")
	fs.BoolVar(&o.S3PathStyle, "s3-path-style", o.S3PathStyle, "address buckets path-style (endpoint/bucket/key), as most self-hosted S3 servers need (env LAKEPG_S3_PATH_STYLE)")
	fs.StringVar(&o.CacheDir, "cache-dir", o.CacheDir, "directory for a local disk cache of data read from S3; empty: no disk cache (env LAKEPG_CACHE_DIR)")
	fs.Var((*sizeFlag)(&o.CacheSize), "cache-size", "size limit of the disk cache, e.g. 10GiB (env LAKEPG_CACHE_SIZE; default 4GiB)")
	fs.Var((*sizeFlag)(&o.MemoryCacheSize), "cache-memory", "size limit of the in-memory cache of S3 footers and ranges, e.g. 256MiB; 0 for the default, -1 to disable (env LAKEPG_CACHE_MEMORY)")
	return o
}

type sizeFlag int64

func (s *sizeFlag) String() string { return strconv.FormatInt(int64(*s), 10) }

func (s *sizeFlag) Set(v string) error {
	n, err := ParseSize(v)
	if err != nil {
		return err
	}
	*s = sizeFlag(n)
	return nil
}

// ParseSize reads a byte count: a plain number or one with a unit (KB, MB,
// GB, TB as powers of 1000; KiB, MiB, GiB, TiB and the bare K, M, G, T as
// powers of 1024). "-1" is accepted to mean "disabled".
func ParseSize(v string) (int64, error) {
	s := strings.TrimSpace(v)
	if s == "-1" {
		return -1, nil
	}
	i := len(s)
	for i > 0 && (s[i-1] < '0' || s[i-1] > '9') {
		i--
	}
	num, unit := strings.TrimSpace(s[:i]), strings.ToLower(strings.TrimSpace(s[i:]))
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bad size %q: want a byte count such as 512MiB or 10GB", v)
	}
	mult := map[string]float64{
		"": 1, "b": 1,
		"k": 1 << 10, "kib": 1 << 10, "kb": 1e3,
		"m": 1 << 20, "mib": 1 << 20, "mb": 1e6,
		"g": 1 << 30, "gib": 1 << 30, "gb": 1e9,
		"t": 1 << 40, "tib": 1 << 40, "tb": 1e12,
	}[unit]
	if mult == 0 {
		return 0, fmt.Errorf("bad size %q: unknown unit %q", v, s[i:])
	}
	return int64(n * mult), nil
}

func (o Options) memoryCacheSize() int64 {
	switch {
	case o.MemoryCacheSize < 0:
		return 0
	case o.MemoryCacheSize == 0:
		return defaultMemoryCache
	}
	return o.MemoryCacheSize
}

func (o Options) diskCacheSize() int64 {
	if o.CacheSize <= 0 {
		return defaultDiskCache
	}
	return o.CacheSize
}
