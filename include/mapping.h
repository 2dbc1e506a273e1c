#ifndef MAPPING_H
#define MAPPING_H
#endif
