// Package compose proves what can be proven about the container set-up
// (Dockerfile, .dockerignore, docker-compose.yml) without a container
// engine. It parses both files and checks that the services are wired to
// each other consistently; it runs the Dockerfile's build stage natively
// (the same COPY steps over the build context less .dockerignore, the same
// go commands) and the binary it makes; and it runs each service of the
// compose file as the file configures it, with only host names, ports and
// container paths rewritten: versitygw as the Dockerfile's "versitygw"
// stage starts it with the s3 service's credentials, the bucket service's
// own script with the AWS CLI, a fresh database named as the catalog
// service's in the test PostgreSQL, and lakepg with exactly the lakepg
// service's command line and environment, which a client then uses with
// the user and password the compose file documents.
//
// What it cannot prove: that the images build and run under an engine (the
// base images, apt-get in the runtime stage, the volumes, the network's
// names). Those need `docker compose up`.
package compose
