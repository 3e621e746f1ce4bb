// Reads the call graph GCC writes with -fcallgraph-info (a .ci file in VCG form) and fails
// when the kernel program recurses (any cycle among its functions) or calls through a
// function pointer (an edge to GCC's __indirect_call placeholder): Metal allows neither.
//
// usage: marlin-callgraph-check FILE.ci   -> exit 0, or 1 with one line per finding.
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace {

using Graph = std::map<std::string, std::vector<std::string>>;

// Depth-first search colouring: 1 = on the current path, 2 = done.
bool find_cycle(const Graph& graph, const std::string& node, std::map<std::string, int>& colour,
                std::vector<std::string>& path) {
  colour[node] = 1;
  path.push_back(node);
  const auto edges = graph.find(node);
  if (edges != graph.end()) {
    for (const std::string& next : edges->second) {
      if (colour[next] == 1) {
        path.push_back(next);
        return true;
      }
      if (colour[next] == 0 && find_cycle(graph, next, colour, path)) return true;
    }
  }
  colour[node] = 2;
  path.pop_back();
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: marlin-callgraph-check FILE.ci\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << argv[1] << ": cannot read\n";
    return 2;
  }
  const std::regex node_re(R"re(node: \{ title: "([^"]+)" label: "([^"\\]+))re");
  const std::regex edge_re(R"re(edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)" label: "([^"]*)")re");
  std::map<std::string, std::string> labels;
  Graph graph;
  int findings = 0;
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, node_re)) labels[m[1]] = m[2];
    if (std::regex_search(line, m, edge_re)) {
      if (m[2] == "__indirect_call") {
        std::cout << m[3] << ": call through a function pointer (Metal has none)\n";
        ++findings;
      }
      graph[m[1]].push_back(m[2]);
    }
  }
  std::map<std::string, int> colour;
  for (const auto& [node, edges] : graph) {
    std::vector<std::string> path;
    if (colour[node] == 0 && find_cycle(graph, node, colour, path)) {
      std::cout << "recursion (Metal has none):";
      for (const std::string& step : path) {
        std::cout << " -> " << (labels.count(step) ? labels[step] : step);
      }
      std::cout << '\n';
      ++findings;
      break;
    }
  }
  return findings == 0 ? 0 : 1;
}
