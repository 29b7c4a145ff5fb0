import java.util.*;

/** Lowest unique number, for 2 to 4 players, as a referee process speaking cg-brutaltester's
 *  protocol (docs/referees.md). Each round has a prize of 1 to 9 points, drawn from the seed;
 *  every player picks a number from 1 to 5 and the lowest number nobody else picked wins the
 *  prize. After 8 rounds the most points win. Each round every player is told, on three lines:
 *  its own seat, the prize, and the points of every seat so far; it answers its number. */
public class LowestUnique {
    static final int ROUNDS = 8;

    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        String[] first = in.nextLine().split(" ");
        long seed = 0;
        if (first[0].equals("###Seed")) {          // a pair of games shares the seed: the same prizes
            seed = Long.parseLong(first[1]);
            first = in.nextLine().split(" ");
        }
        int players = Integer.parseInt(first[1]);
        Random random = new Random(seed);
        int[] points = new int[players];
        for (int round = 0; round < ROUNDS; round++) {
            int prize = 1 + random.nextInt(9);
            StringBuilder out = new StringBuilder();
            for (int seat = 0; seat < players; seat++) {   // every input first, as real referees do
                out.append("###Input ").append(seat).append('\n').append(seat).append('\n')
                   .append(prize).append('\n').append(joined(points)).append('\n');
            }
            int[] picks = new int[players];
            for (int seat = 0; seat < players; seat++) {
                System.out.print(out.append("###Output ").append(seat).append(" 1\n"));
                System.out.flush();
                out.setLength(0);
                String answer = in.nextLine().trim();
                try {
                    picks[seat] = Integer.parseInt(answer.split(" ")[0]);
                } catch (NumberFormatException e) {
                    picks[seat] = 0;
                }
                if (picks[seat] < 1 || picks[seat] > 5) {
                    System.err.println("###Error " + seat + " '" + answer + "' is no number from 1 to 5");
                    picks[seat] = 0;
                }
            }
            int winner = -1;
            for (int seat = 0; seat < players; seat++) {
                int count = 0;
                for (int pick : picks) count += pick == picks[seat] ? 1 : 0;
                if (picks[seat] > 0 && count == 1 && (winner < 0 || picks[seat] < picks[winner])) winner = seat;
            }
            if (winner >= 0) points[winner] += prize;
        }
        StringBuilder end = new StringBuilder("###End");   // places, best first; ties share one
        int[] distinct = Arrays.stream(points).distinct().boxed().sorted(Comparator.reverseOrder())
                               .mapToInt(Integer::intValue).toArray();
        for (int score : distinct) {
            end.append(' ');
            for (int seat = 0; seat < players; seat++) if (points[seat] == score) end.append(seat);
        }
        System.out.println(end);
        System.out.flush();
    }

    static String joined(int[] values) {
        StringBuilder text = new StringBuilder();
        for (int value : values) text.append(text.length() > 0 ? " " : "").append(value);
        return text.toString();
    }
}
