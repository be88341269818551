package storage

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmw "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/middleware"
)

// s3Backend serves s3://bucket/key paths from S3 or an S3-compatible server.
// Objects are immutable once written (DuckLake names every file by a fresh
// uuid), which is what makes caching ranges keyed by path and ETag safe.
type s3Backend struct {
	client  *s3.Client
	footers *footerCache // nil when the memory cache is disabled
	mem     *rangeCache  // nil when the memory cache is disabled
	disk    *diskCache   // nil without a cache directory
}

// Retry policy: throttling (503 SlowDown), 5xx, connection errors and
// timeouts are retried by the SDK's standard retryer with jittered
// exponential backoff. The attempt count and the backoff cap are chosen so a
// dead endpoint fails a statement in seconds, not minutes; the client-side
// retry quota is off because one lakepg process is one client and a quota
// exhausted during an outage would keep failing requests after it ends.
const (
	s3MaxAttempts = 5
	s3MaxBackoff  = 2 * time.Second
	s3DialTimeout = 5 * time.Second
	// s3ReadTimeout fails a connection that delivers no byte for this long.
	s3ReadTimeout = 30 * time.Second
)

// NewS3 returns the S3 backend configured by opts and the standard AWS
// credential chain. It does not contact the server.
func NewS3(ctx context.Context, opts Options) (Backend, error) {
	return newS3(ctx, opts)
}

func newS3(ctx context.Context, opts Options) (*s3Backend, error) {
	httpClient := awshttp.NewBuildableClient().
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = s3DialTimeout }).
		WithTransportOptions(func(t *http.Transport) {
			t.MaxIdleConnsPerHost = 64
			t.ResponseHeaderTimeout = s3ReadTimeout
		}).
		WithReadTimeout(s3ReadTimeout)
	load := []func(*config.LoadOptions) error{
		config.WithHTTPClient(httpClient),
		config.WithRetryer(func() aws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) {
				o.MaxAttempts = s3MaxAttempts
				o.MaxBackoff = s3MaxBackoff
				o.RateLimiter = ratelimit.None
			})
		}),
		// Checksums only where the API requires them: S3-compatible servers
		// differ in their support of the newer trailing checksums, and the
		// Parquet footer already guards the content.
		config.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired),
		config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired),
	}
	if opts.S3Region != "" {
		load = append(load, config.WithRegion(opts.S3Region))
	}
	cfg, err := config.LoadDefaultConfig(ctx, load...)
	if err != nil {
		return nil, fmt.Errorf("storage: S3 configuration: %w", err)
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	endpoint := opts.S3Endpoint
	if endpoint != "" && !strings.Contains(endpoint, "://") {
		endpoint = "https://" + endpoint
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
		o.UsePathStyle = opts.S3PathStyle
		o.APIOptions = append(o.APIOptions, countRequests)
	})
	b := &s3Backend{client: client}
	if n := opts.memoryCacheSize(); n > 0 {
		b.footers = newFooterCache(n / 4)
		b.mem = newRangeCache(n - n/4)
	}
	if opts.CacheDir != "" {
		b.disk, err = openDiskCache(opts.CacheDir, opts.diskCacheSize())
		if err != nil {
			return nil, err
		}
	}
	return b, nil
}

type attemptKey struct{}

// countRequests counts every HTTP attempt: a counter set up before the
// retry loop (Initialize) is bumped after it (the end of Finalize, which
// runs once per attempt).
func countRequests(stack *middleware.Stack) error {
	err := stack.Initialize.Add(middleware.InitializeMiddlewareFunc("lakepgAttemptCounter",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			return next.HandleInitialize(context.WithValue(ctx, attemptKey{}, new(atomic.Int32)), in)
		}), middleware.Before)
	if err != nil {
		return err
	}
	return stack.Finalize.Add(middleware.FinalizeMiddlewareFunc("lakepgCountRequests",
		func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
			attempt := 1
			if c, ok := ctx.Value(attemptKey{}).(*atomic.Int32); ok {
				attempt = int(c.Add(1))
			}
			countAttempt(awsmw.GetOperationName(ctx), attempt)
			return next.HandleFinalize(ctx, in)
		}), middleware.After)
}

// listPageSize is S3's maximum page; tests lower it to exercise paging.
var listPageSize int32 = 1000

// s3Path is a parsed s3://bucket/key.
type s3Path struct {
	bucket, key string
}

func (p s3Path) String() string { return "s3://" + p.bucket + "/" + p.key }

func parseS3(path string) (s3Path, error) {
	rest, ok := cutScheme(path, "s3")
	if !ok {
		return s3Path{}, fmt.Errorf("storage: %q is not an s3:// path", path)
	}
	bucket, key, _ := strings.Cut(rest, "/")
	if bucket == "" {
		return s3Path{}, fmt.Errorf("storage: %q names no bucket (want s3://bucket/key)", path)
	}
	return s3Path{bucket: bucket, key: key}, nil
}

// cutScheme strips "scheme://" case-insensitively.
func cutScheme(path, scheme string) (string, bool) {
	p := scheme + "://"
	if len(path) >= len(p) && strings.EqualFold(path[:len(p)], p) {
		return path[len(p):], true
	}
	return "", false
}

func (b *s3Backend) Stat(ctx context.Context, path string) (int64, error) {
	p, err := parseS3(path)
	if err != nil {
		return 0, err
	}
	if p.key == "" || strings.HasSuffix(p.key, "/") {
		return 0, fmt.Errorf("storage: stat %s: not an object", p)
	}
	out, err := b.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &p.bucket, Key: &p.key})
	if err != nil {
		return 0, b.notFound(ctx, "stat", p, s3Err(ctx, "stat", p, err))
	}
	return aws.ToInt64(out.ContentLength), nil
}

func (b *s3Backend) Delete(ctx context.Context, path string) error {
	p, err := parseS3(path)
	if err != nil {
		return err
	}
	_, err = b.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &p.bucket, Key: &p.key})
	if err != nil {
		err = s3Err(ctx, "delete", p, err)
		if errors.Is(err, errNoSuchKey) {
			// S3 answers 204 for a missing key; some compatible servers say 404.
			return nil
		}
		return err
	}
	return nil
}

// List pages through ListObjectsV2. S3 already returns keys in byte order,
// but not every compatible server does, so the result is sorted here too.
// Keys ending in '/' are folder markers some tools create, not objects.
func (b *s3Backend) List(ctx context.Context, prefix string) ([]ObjectInfo, error) {
	p, err := parseS3(prefix)
	if err != nil {
		return nil, err
	}
	var out []ObjectInfo
	pages := s3.NewListObjectsV2Paginator(b.client, &s3.ListObjectsV2Input{Bucket: &p.bucket, Prefix: &p.key, MaxKeys: aws.Int32(listPageSize)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, s3Err(ctx, "list", p, err)
		}
		for _, o := range page.Contents {
			k := aws.ToString(o.Key)
			if strings.HasSuffix(k, "/") {
				continue
			}
			out = append(out, ObjectInfo{Path: "s3://" + p.bucket + "/" + k, Size: aws.ToInt64(o.Size), ModTime: aws.ToTime(o.LastModified)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}
