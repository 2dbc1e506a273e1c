/* Memory of a large import (issue 5, target 4): the people workload imported as one document and in
 * chunks of 10,000, with each parser this build has, each in its own child process so peaks do not mix. Reports the child's peak RSS
 * (wait4), the RSS left once the input is freed (the retained graph, plus the process's baseline)
 * and the time. Usage: memory SPEC PAYLOAD — PAYLOAD is gen.py output ({"people": [...]}). */
#define _GNU_SOURCE
#include <malloc.h>
#include <mapping.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *read_all(const char *path, size_t *length) {
    FILE *file = fopen(path, "rb");
    if (!file) { perror(path); exit(2); }
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *data = malloc((size_t)size + 1);
    if (!data || fread(data, 1, (size_t)size, file) != (size_t)size) exit(2);
    fclose(file);
    data[size] = '\0';
    *length = (size_t)size;
    return data;
}

static long rss_kb(void) {
    FILE *status = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (status && fgets(line, sizeof line, status)) {
        if (strncmp(line, "VmRSS:", 6) == 0) kb = strtol(line + 6, NULL, 10);
    }
    if (status) fclose(status);
    return kb;
}

/* In the child: import, free the input, and report RSS before and after through `out`. */
static size_t chunk_size = 10000;

static int run(const char *spec_path, const char *payload_path, int chunked, int parser, FILE *out) {
    size_t spec_len, length;
    char *spec = read_all(spec_path, &spec_len);
    long baseline = rss_kb();
    char *data = read_all(payload_path, &length);
    mapping_context *ctx = NULL;
    if (mapping_context_new(spec, spec_len, &ctx) != MAPPING_OK) return 1;
    if (mapping_context_set_parser(ctx, parser) != MAPPING_OK) return 1;
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int rc;
    if (chunked) {
        const size_t prefix = strlen("{\"people\":");  /* the array inside gen.py's wrapper */
        rc = mapping_context_import_chunked(ctx, "person", data + prefix, length - prefix - 1, MAPPING_CHUNKS_ARRAY, chunk_size, NULL, NULL);
    } else {
        rc = mapping_context_import(ctx, "person", data, length, NULL);
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    if (rc != MAPPING_OK) { fprintf(stderr, "%s\n", mapping_error_message(ctx)); return 1; }
    free(data);
    malloc_trim(0);
    fprintf(out, "%zu %ld %ld %.2f\n", length, baseline, rss_kb(),
            (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9);
    mapping_context_free(ctx);
    free(spec);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: memory SPEC PAYLOAD [CHUNK_SIZE]\n"); return 2; }
    if (argc > 3) chunk_size = strtoul(argv[3], NULL, 10);
    printf("# Memory of a large import\n\n| way | time | peak RSS | RSS after (input freed) | retained vs input |\n|---|---|---|---|---|\n");
    size_t input = 0;
    for (int parser = MAPPING_PARSER_JANSSON; parser <= MAPPING_PARSER_SIMDJSON; parser++)
    for (int chunked = 0; chunked <= 1; chunked++) {
        if (!mapping_parser_is_available(parser)) continue;
        int pipefd[2];
        if (pipe(pipefd) != 0) return 2;
        pid_t child = fork();
        if (child == 0) {
            close(pipefd[0]);
            FILE *out = fdopen(pipefd[1], "w");
            int status = run(argv[1], argv[2], chunked, parser, out);
            fclose(out);
            _exit(status);
        }
        close(pipefd[1]);
        FILE *in = fdopen(pipefd[0], "r");
        long baseline = 0, after = 0;
        double seconds = 0;
        int fields = fscanf(in, "%zu %ld %ld %lf", &input, &baseline, &after, &seconds);
        fclose(in);
        int status = 0;
        struct rusage usage;
        if (wait4(child, &status, 0, &usage) < 0 || status != 0 || fields != 4) { fprintf(stderr, "child failed\n"); return 1; }
        double retained = (double)(after - baseline) * 1024.0;
        char way[96];
        const char *parser_name = parser == MAPPING_PARSER_SIMDJSON ? "simdjson" : "jansson";
        if (chunked) snprintf(way, sizeof way, "%s, chunks of %zu (mapping_context_import_chunked)", parser_name, chunk_size);
        else snprintf(way, sizeof way, "%s, one document (mapping_context_import)", parser_name);
        printf("| %s | %.1f s | %.2f GB | %.2f GB | %.1f× |\n", way, seconds, (double)usage.ru_maxrss / 1048576.0, (double)after / 1048576.0, retained / (double)input);
    }
    printf("\nInput: %.0f MB held in memory by the caller during the import. Target: peak of the chunked import <= 1.5 GB;"
           " retained graph <= 1.0x the input.\n", (double)input / 1e6);
    return 0;
}
