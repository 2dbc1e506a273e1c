/* Four threads importing into and reading from one context at once: no crash, and a consistent
 * graph afterwards (every identity once, every inverse in step). */
#include <pthread.h>

#include "harness.h"

enum { THREADS = 4, ROUNDS = 40, PEOPLE = 60, COMPANIES = 7 };

static mapping_context *ctx;
static int failures[THREADS];

static void *worker(void *argument) {
    int thread = (int)(intptr_t)argument;
    char *payload = malloc(PEOPLE * 160 + 64);
    for (int round = 0; round < ROUNDS; round++) {
        size_t at = (size_t)sprintf(payload, "{\"data\":{\"people\":[");
        for (int i = 0; i < PEOPLE; i++) {
            int id = (i * 7 + round + thread) % PEOPLE;  /* every thread touches every identity */
            at += (size_t)sprintf(payload + at, "%s{\"id\":%d,\"name\":\"t%d-r%d\",\"age\":\"%d\","
                                  "\"company\":{\"id\":%d},\"phones\":[{\"number\":\"%d-%d\"}]}",
                                  i ? "," : "", id, thread, round, round, (id + round) % COMPANIES, id, round % 3);
        }
        sprintf(payload + at, "]}}");
        mapping_list *list = NULL;
        if (mapping_context_import(ctx, "person", payload, MAPPING_NUL_TERMINATED, &list) != MAPPING_OK) failures[thread]++;
        if (mapping_list_count(list) != PEOPLE) failures[thread]++;
        /* Read while the others write: every person has a company that lists them. */
        for (size_t i = 0; i < mapping_list_count(list); i += 5) {
            mapping_object person = 0, company = 0;
            const char *name = NULL;
            if (mapping_list_at(list, i, &person) != MAPPING_OK) failures[thread]++;
            if (mapping_object_get_string(ctx, person, "name", &name, NULL) != MAPPING_OK || name[0] != 't') failures[thread]++;
            if (mapping_object_related(ctx, person, "company", &company) != MAPPING_OK || company == 0) failures[thread]++;
        }
        mapping_list_free(list);
        size_t count = 0;
        if (mapping_entity_count(ctx, "Person", &count) != MAPPING_OK || count != PEOPLE) failures[thread]++;
    }
    free(payload);
    return NULL;
}

int main(int argc, char **argv) {
    ctx = harness_context(argc > 1 ? argv[1] : "Tests/fixtures", "people.spec.json");
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++) pthread_create(&threads[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
    for (int i = 0; i < THREADS; i++) EXPECT(failures[i] == 0);

    size_t count = 0;
    EXPECT_OK(ctx, mapping_entity_count(ctx, "Person", &count));
    EXPECT(count == PEOPLE);
    EXPECT_OK(ctx, mapping_entity_count(ctx, "Company", &count));
    EXPECT(count == COMPANIES);
    /* Inverses in step: the companies' employees are exactly the people, each once. */
    mapping_list *companies = NULL;
    EXPECT_OK(ctx, mapping_entity_all(ctx, "Company", &companies));
    size_t employees_total = 0;
    for (size_t c = 0; c < mapping_list_count(companies); c++) {
        mapping_object company = 0;
        mapping_list *employees = NULL;
        EXPECT_OK(ctx, mapping_list_at(companies, c, &company));
        EXPECT_OK(ctx, mapping_object_related_list(ctx, company, "employees", &employees));
        for (size_t e = 0; e < mapping_list_count(employees); e++) {
            mapping_object person = 0, back = 0;
            EXPECT_OK(ctx, mapping_list_at(employees, e, &person));
            EXPECT_OK(ctx, mapping_object_related(ctx, person, "company", &back));
            EXPECT(back == company);
        }
        employees_total += mapping_list_count(employees);
        mapping_list_free(employees);
    }
    EXPECT(employees_total == PEOPLE);
    mapping_list_free(companies);
    mapping_context_free(ctx);
    return harness_finish("c threads");
}
