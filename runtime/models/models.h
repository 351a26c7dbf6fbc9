// The model zoo's builders, one file per family; model_zoo.cc maps names to them.
#pragma once

#include "runtime/core/graph.h"

namespace superopt::models {

Graph resnet50();
Graph resnet34();
Graph resnet18();
Graph resnext50();
Graph resnet_blocks(int blocks);
Graph inception_v3();
Graph inceptione_blocks(int blocks);
Graph squeezenet();
Graph nasnet_a();
Graph nasrnn();
Graph sru();
Graph bert();
Graph alexnet();
Graph vgg16();

}  // namespace superopt::models
