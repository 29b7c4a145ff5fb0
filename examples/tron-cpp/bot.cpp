// A Tron Battle bot for CodinGame's input (the arena's `codingame` dialect): each turn
// it reads "N P" and one "X0 Y0 X1 Y1" line per player (-1 -1 -1 -1 once out), and
// prints UP, DOWN, LEFT or RIGHT. It marks every head it is shown, so it knows the
// trails, and picks the move whose cell leaves it the most territory: the cells it
// reaches before any other cycle (a Voronoi split by breadth-first distance), the
// classic Tron evaluation. Any number of players (2 to 4) is handled alike.
//
// Build: g++ -O2 -o bot bot.cpp. The grid's size is not sent: CodinGame's 30x20 unless
// given as arguments (./bot WIDTH HEIGHT), as the league's rules must agree.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <deque>

static int W = 30, H = 20;
static std::vector<char> wall;   // 1 for a cell some cycle has held

static const int DX[4] = {0, 0, -1, 1};
static const int DY[4] = {-1, 1, 0, 0};
static const char *NAMES[4] = {"UP", "DOWN", "LEFT", "RIGHT"};

static bool free_cell(int x, int y) {
    return x >= 0 && y >= 0 && x < W && y < H && !wall[y * W + x];
}

// Breadth-first distances from (x, y) over free cells; -1 where it cannot reach.
static std::vector<int> distances(int x, int y) {
    std::vector<int> dist(W * H, -1);
    std::deque<int> queue;
    dist[y * W + x] = 0;
    queue.push_back(y * W + x);
    while (!queue.empty()) {
        int cell = queue.front();
        queue.pop_front();
        int cx = cell % W, cy = cell / W;
        for (int d = 0; d < 4; d++) {
            int nx = cx + DX[d], ny = cy + DY[d];
            if (free_cell(nx, ny) && dist[ny * W + nx] < 0) {
                dist[ny * W + nx] = dist[cell] + 1;
                queue.push_back(ny * W + nx);
            }
        }
    }
    return dist;
}

int main(int argc, char **argv) {
    if (argc >= 3) {
        W = std::atoi(argv[1]);
        H = std::atoi(argv[2]);
    }
    wall.assign(W * H, 0);
    int n, me;
    while (std::scanf("%d %d", &n, &me) == 2) {
        std::vector<int> hx(n), hy(n);
        for (int p = 0; p < n; p++) {
            int x0, y0, x1, y1;
            if (std::scanf("%d %d %d %d", &x0, &y0, &x1, &y1) != 4) return 0;
            hx[p] = x1;
            hy[p] = y1;
            if (x0 >= 0) wall[y0 * W + x0] = 1;
            if (x1 >= 0) wall[y1 * W + x1] = 1;
        }
        // the others' distances, from where their heads are now
        std::vector<std::vector<int>> theirs;
        for (int p = 0; p < n; p++)
            if (p != me && hx[p] >= 0) theirs.push_back(distances(hx[p], hy[p]));
        int best = 0;
        long best_score = -1000000000L;
        for (int d = 0; d < 4; d++) {
            int nx = hx[me] + DX[d], ny = hy[me] + DY[d];
            if (!free_cell(nx, ny)) continue;
            wall[ny * W + nx] = 1;        // our trail, as it will be after the move
            std::vector<int> mine = distances(nx, ny);
            wall[ny * W + nx] = 0;
            long score = 0;
            for (int c = 0; c < W * H; c++) {
                if (mine[c] < 0) continue;
                bool first = true;        // we get there before every other cycle
                for (const std::vector<int> &other : theirs)
                    if (other[c] >= 0 && other[c] <= mine[c] + 1) first = false;
                score += first ? 10 : 1;  // shared cells count a little: room to survive
            }
            // a cell another head can also step into this turn: both may go out
            for (size_t p = 0; p < (size_t)n; p++)
                if ((int)p != me && hx[p] >= 0 && std::abs(hx[p] - nx) + std::abs(hy[p] - ny) == 1)
                    score -= 5000;
            if (score > best_score) {
                best_score = score;
                best = d;
            }
        }
        std::printf("%s\n", NAMES[best]);
        std::fflush(stdout);
    }
    return 0;
}
